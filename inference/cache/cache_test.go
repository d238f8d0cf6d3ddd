package cache_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/cache"
)

// fakeModel is an inner source whose providers answer with complete and
// count the requests that reach them.
type fakeModel struct {
	calls    atomic.Int64
	complete func(c inference.Case, req *inference.Request) (*inference.Response, error)
}

func (f *fakeModel) ForCase(_ context.Context, c inference.Case) (inference.Provider, error) {
	if c.Inference.Transport == "process" {
		return nil, nil
	}
	return providerFunc(func(req *inference.Request) (*inference.Response, error) {
		f.calls.Add(1)
		return f.complete(c, req)
	}), nil
}

type providerFunc func(req *inference.Request) (*inference.Response, error)

func (p providerFunc) Complete(_ context.Context, req *inference.Request, _ inference.Observer) (*inference.Response, error) {
	return p(req)
}

// echo answers with the model's name and the last message, so two models
// answer differently.
func echo(c inference.Case, req *inference.Request) (*inference.Response, error) {
	text, _ := json.Marshal(c.Inference.Model + ": " + string(req.Messages[len(req.Messages)-1].Content))
	raw := `{"stop_reason":"end_turn","content":[{"type":"text","text":` + string(text) + `}],"usage":{"input_tokens":7,"output_tokens":3}}`
	return inference.ParseResponse([]byte(raw))
}

// lookups counts what the observer hears.
type lookups struct {
	inference.NopObserver
	hits, misses int
}

func (l *lookups) Cached(hit bool) {
	if hit {
		l.hits++
	} else {
		l.misses++
	}
}

func newCase(model, workdir string, epoch int) inference.Case {
	return inference.Case{ID: "c1", Epoch: epoch, Workdir: workdir,
		Inference: inference.Config{Endpoint: "http://127.0.0.1:1", Model: model, DriverArtifact: "murmur-driver-anthropic"}}
}

func request(workdir, task string) *inference.Request {
	return &inference.Request{Model: "m", MaxTokens: 100, Params: json.RawMessage("{}"), System: "Workdir: " + workdir,
		Messages: []inference.Message{inference.UserMessage(task)}}
}

// ask sends one request through a fresh provider of src for c.
func ask(t *testing.T, src inference.Source, c inference.Case, req *inference.Request, obs inference.Observer) *inference.Response {
	t.Helper()
	p, err := src.ForCase(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Complete(context.Background(), req, obs)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func newSource(t testing.TB, inner inference.Source) (*cache.Source, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cache")
	src, err := cache.New(dir, inner)
	if err != nil {
		t.Fatal(err)
	}
	return src, dir
}

// TestCacheMissThenHit: the first request reaches the model and is kept;
// the same request again, from another case folder, is answered from the
// cache with the very bytes the model returned.
func TestCacheMissThenHit(t *testing.T) {
	model := &fakeModel{complete: echo}
	src, _ := newSource(t, model)
	var obs lookups
	first := ask(t, src, newCase("m", "/runs/a/s1", 1), request("/runs/a/s1", "add"), &obs)
	second := ask(t, src, newCase("m", "/runs/b/s9", 1), request("/runs/b/s9", "add"), &obs)
	if got := model.calls.Load(); got != 1 {
		t.Errorf("model requests: got %d, want 1", got)
	}
	if diff := cmp.Diff(string(second.Raw), string(first.Raw)); diff != "" {
		t.Errorf("cached raw (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(second.Usage, first.Usage); diff != "" {
		t.Errorf("cached usage (-got +want):\n%s", diff)
	}
	if got, want := (lookups{hits: obs.hits, misses: obs.misses}), (lookups{hits: 1, misses: 1}); got != want {
		t.Errorf("observer: got %+v, want %+v", got, want)
	}
	if got, want := src.Stats(), (cache.Stats{Hits: 1, Misses: 1}); got != want {
		t.Errorf("stats: got %+v, want %+v", got, want)
	}
}

// TestCacheScopes: the same request to another model, endpoint, driver
// config or epoch is never answered with another's entry.
func TestCacheScopes(t *testing.T) {
	base := newCase("m", "/w", 1)
	tests := []struct {
		name string
		c    func() inference.Case
	}{
		{"model", func() inference.Case { c := base; c.Inference.Model = "other"; return c }},
		{"endpoint", func() inference.Case { c := base; c.Inference.Endpoint = "http://127.0.0.1:2"; return c }},
		{"driver", func() inference.Case { c := base; c.Inference.DriverArtifact = "murmur-driver-openai"; return c }},
		{"driver config", func() inference.Case {
			c := base
			c.Inference.DriverConfig = json.RawMessage(`{"api":"openai"}`)
			return c
		}},
		{"epoch", func() inference.Case { c := base; c.Epoch = 2; return c }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &fakeModel{complete: echo}
			src, _ := newSource(t, model)
			ask(t, src, base, request("/w", "add"), inference.NopObserver{})
			ask(t, src, tt.c(), request("/w", "add"), inference.NopObserver{})
			if got := model.calls.Load(); got != 2 {
				t.Errorf("model requests: got %d, want 2", got)
			}
		})
	}
}

// entryFile is the one entry in dir.
func entryFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("entries in %s: got %v (%v), want one", dir, files, err)
	}
	return files[0]
}

// TestCacheCorruptEntry: an entry that is not a valid answer to its
// request is a miss, counted, and overwritten by the model's answer.
func TestCacheCorruptEntry(t *testing.T) {
	other := `{"stop_reason":"end_turn","content":[],"request_sha256":"0000"}` + "\n"
	tests := []struct {
		name, body string
	}{
		{"garbage", "not json"},
		{"empty", ""},
		{"another request", other},
		{"two lines", `{"stop_reason":"end_turn","content":[]}` + "\n" + `{}` + "\n"},
		{"error answer", `{"stop_reason":"error","error":"overloaded"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &fakeModel{complete: echo}
			src, dir := newSource(t, model)
			ask(t, src, newCase("m", "/w", 1), request("/w", "add"), inference.NopObserver{})
			path := entryFile(t, dir)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			ask(t, src, newCase("m", "/w", 1), request("/w", "add"), inference.NopObserver{})
			ask(t, src, newCase("m", "/w", 1), request("/w", "add"), inference.NopObserver{})
			if got, want := src.Stats(), (cache.Stats{Hits: 1, Misses: 2, Corrupt: 1}); got != want {
				t.Errorf("stats: got %+v, want %+v", got, want)
			}
			got, _ := os.ReadFile(path)
			if diff := cmp.Diff(string(got), string(want)); diff != "" {
				t.Errorf("rewritten entry (-got +want):\n%s", diff)
			}
		})
	}
}

// TestCacheErrorsNotCached: a provider failure and a stop_reason "error"
// answer reach the caller and are asked again next time.
func TestCacheErrorsNotCached(t *testing.T) {
	failure := errcode.New(errcode.ModelResponse, "model said 400")
	tests := []struct {
		name    string
		answer  func(inference.Case, *inference.Request) (*inference.Response, error)
		wantErr bool
	}{
		{"provider failure", func(inference.Case, *inference.Request) (*inference.Response, error) { return nil, failure }, true},
		{"error answer", func(inference.Case, *inference.Request) (*inference.Response, error) {
			return inference.ParseResponse([]byte(`{"stop_reason":"error","error":"overloaded"}`))
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &fakeModel{complete: tt.answer}
			src, dir := newSource(t, model)
			for range 2 {
				p, err := src.ForCase(context.Background(), newCase("m", "/w", 1))
				if err != nil {
					t.Fatal(err)
				}
				_, err = p.Complete(context.Background(), request("/w", "add"), inference.NopObserver{})
				if got := err != nil; got != tt.wantErr {
					t.Fatalf("error: got %v, want an error %v", err, tt.wantErr)
				}
				if tt.wantErr && !errors.Is(err, failure) {
					t.Errorf("error: got %v, want the provider's", err)
				}
			}
			if got := model.calls.Load(); got != 2 {
				t.Errorf("model requests: got %d, want 2", got)
			}
			if files, _ := filepath.Glob(filepath.Join(dir, "*", "*")); len(files) != 0 {
				t.Errorf("cache files: got %v, want none", files)
			}
		})
	}
}

// TestCacheConcurrentWriters: cases (and runs) sharing the folder, all
// missing the same entry at once, each get a whole answer, and the folder
// ends with one valid entry and no temporary file.
func TestCacheConcurrentWriters(t *testing.T) {
	model := &fakeModel{complete: echo}
	dir := filepath.Join(t.TempDir(), "cache")
	var g errgroup.Group
	var mu sync.Mutex
	var raws []string
	for i := range 16 {
		g.Go(func() error {
			src, err := cache.New(dir, model) // a Source per run sharing dir
			if err != nil {
				return err
			}
			for j := range 20 {
				wd := fmt.Sprintf("/w/%d/%d", i, j)
				p, err := src.ForCase(context.Background(), newCase("m", wd, 1))
				if err != nil {
					return err
				}
				resp, err := p.Complete(context.Background(), request(wd, "add"), inference.NopObserver{})
				if err != nil {
					return err
				}
				mu.Lock()
				raws = append(raws, string(resp.Raw))
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for _, raw := range raws {
		if raw != raws[0] {
			t.Fatalf("answers differ: got %s, want %s", raw, raws[0])
		}
	}
	entryFile(t, dir)
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*", ".entry-*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestCacheProcessTransport: a case with no provider (its CLI calls the
// model) passes through.
func TestCacheProcessTransport(t *testing.T) {
	src, _ := newSource(t, &fakeModel{complete: echo})
	c := newCase("m", "/w", 1)
	c.Inference.Transport = "process"
	p, err := src.ForCase(context.Background(), c)
	if p != nil || err != nil {
		t.Errorf("ForCase: got %v, %v; want nil, nil", p, err)
	}
}

// TestCacheNotADirectory: --cache naming a file is a usage error.
func TestCacheNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := cache.New(file, &fakeModel{complete: echo})
	if got := errcode.Code(err); got != errcode.Usage && got != errcode.IO {
		t.Errorf("code: got %q (%v), want %s or %s", got, err, errcode.Usage, errcode.IO)
	}
}
