package record_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/live"
	"github.com/murmur-nexus/murmur-eval/inference/record"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// anthropic answers a first request with a tool call and a second with the
// task echoed, so every case's answers depend only on its own requests.
func anthropic(r apitest.Request) apitest.Reply {
	var req struct {
		Messages []struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &req)
	task := req.Messages[0].Content[0].Text
	if strings.Contains(task, "fail") { // a harness error: not recorded
		return apitest.Reply{Status: 307, Header: map[string]string{"Location": "http://127.0.0.2:1/"}}
	}
	if strings.Contains(task, "rejected") { // murmur's driver fails the session
		return apitest.Reply{Status: 400, Body: apitest.AnthropicError("invalid_request_error", "no")}
	}
	if len(req.Messages) == 1 {
		return apitest.Reply{Body: apitest.AnthropicMessage("tool_use", 10, 5, apitest.AnthropicToolUse("toolu_"+task, "calc", `{"q":"`+task+`"}`))}
	}
	return apitest.Reply{Body: apitest.AnthropicMessage("end_turn", 20, 3, apitest.AnthropicText("done "+task))}
}

func caseFor(id, workdir string, srv *apitest.Server) inference.Case {
	return inference.Case{ID: id, Workdir: workdir, Inference: inference.Config{Endpoint: srv.URL, Model: "m", DriverArtifact: "murmur-driver-anthropic"}}
}

// converse runs two turns the way the loop does and returns the responses.
func converse(ctx context.Context, p inference.Provider, task, workdir string, obs inference.Observer) ([]*inference.Response, error) {
	req := &inference.Request{Model: "m", MaxTokens: 100, Params: json.RawMessage("{}"), System: "Workdir: " + workdir,
		Messages: []inference.Message{inference.UserMessage(task)}}
	var out []*inference.Response
	for range 2 {
		r, err := p.Complete(ctx, req, obs)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if r.StopReason != inference.StopToolCall {
			break
		}
		req.Messages = append(req.Messages, inference.AssistantMessage(r.Content), inference.ToolMessage(r.ToolCalls()[0].ID, false, "ok"))
	}
	return out, nil
}

type divergences struct{ n int }

func (d *divergences) Cached(bool)                   {}
func (d *divergences) Retried(inference.Retry)       {}
func (d *divergences) Diverged(inference.Divergence) { d.n++ }

func TestRecordThenReplayWithTheServerStopped(t *testing.T) {
	srv := apitest.New(t, anthropic)
	dir := filepath.Join(t.TempDir(), "rec")
	src, err := record.New(dir, live.New(httpapi.NewClient(httpapi.Options{MaxConnections: 4})))
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"notes/round trip"}
	for i := range 40 {
		ids = append(ids, fmt.Sprintf("case-%02d", i))
	}
	recorded := make([][]*inference.Response, len(ids))
	var g errgroup.Group
	g.SetLimit(16)
	for i, id := range ids {
		g.Go(func() error {
			wd := "/out1/sessions/" + id
			p, err := src.ForCase(context.Background(), caseFor(id, wd, srv))
			if err != nil {
				return err
			}
			recorded[i], err = converse(context.Background(), p, id, wd, inference.NopObserver{})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	srv.Close()

	rep, err := replay.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		wd := "/out2/sessions/other-" + id
		p, err := rep.ForCase(context.Background(), inference.Case{ID: id, Workdir: wd})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		obs := &divergences{}
		got, err := converse(context.Background(), p, id, wd, obs)
		if err != nil {
			t.Fatalf("%s: replay: %v", id, err)
		}
		if diff := cmp.Diff(recorded[i], got); diff != "" {
			t.Errorf("%s: replayed responses differ (-recorded +replayed):\n%s", id, diff)
		}
		if obs.n != 0 {
			t.Errorf("%s: %d divergences replaying the same conversation", id, obs.n)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, replay.FileName("notes/round trip"))); err != nil {
		t.Errorf("the id with a slash is not recorded under its hashed name: %v", err)
	}
}

func TestRecordingReplacesOldFilesAndSkipsErrors(t *testing.T) {
	srv := apitest.New(t, anthropic)
	dir := t.TempDir()
	stale := filepath.Join(dir, "fail-1.jsonl")
	if err := os.WriteFile(stale, []byte(`{"stop_reason":"end_turn"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, _ := record.New(dir, live.New(httpapi.NewClient(httpapi.Options{})))
	p, err := src.ForCase(context.Background(), caseFor("fail-1", "/w", srv))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := converse(context.Background(), p, "fail-1", "/w", inference.NopObserver{}); !errcode.Is(err, errcode.ProviderRejected) {
		t.Fatalf("converse = %v, want E-EVL-015", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale recording survived: %v", err)
	}
	// A 400 ends the session failed, as murmur's driver ends it: recorded,
	// and replayed as the same failed ending.
	pr, _ := src.ForCase(context.Background(), caseFor("rejected-1", "/w", srv))
	got, err := converse(context.Background(), pr, "rejected-1", "/w", inference.NopObserver{})
	if err != nil || len(got) != 1 || !got[0].DriverFailed || !strings.Contains(got[0].Error, "HTTP 400: ") {
		t.Fatalf("rejected: %v %+v, want the session failed with HTTP 400", err, got)
	}
	rep, err := replay.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := rep.ForCase(context.Background(), inference.Case{ID: "rejected-1", Workdir: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := converse(context.Background(), rp, "rejected-1", "/w", inference.NopObserver{})
	if err != nil || len(again) != 1 || !again[0].DriverFailed || again[0].Error != got[0].Error {
		t.Errorf("replayed rejected: %v %+v, want the same failed ending %q", err, again, got[0].Error)
	}
	// A second case with the same id (another epoch) is served, not recorded.
	p1, _ := src.ForCase(context.Background(), caseFor("twice", "/w", srv))
	p2, _ := src.ForCase(context.Background(), caseFor("twice", "/w", srv))
	for _, p := range []inference.Provider{p1, p2} {
		if _, err := converse(context.Background(), p, "twice", "/w", inference.NopObserver{}); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "twice.jsonl"))
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Errorf("twice.jsonl has %d lines, want the first epoch's 2", n)
	}
}

func TestNewRefusesAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	_ = os.WriteFile(f, nil, 0o644)
	if _, err := record.New(f, nil); errcode.Code(err) == "" {
		t.Errorf("New(file) = %v, want a coded error", err)
	}
}

func TestRecordRefusesAProcessCapsule(t *testing.T) {
	src, err := record.New(t.TempDir(), live.New(httpapi.NewClient(httpapi.Options{})))
	if err != nil {
		t.Fatal(err)
	}
	p, err := src.ForCase(context.Background(), inference.Case{ID: "c", Inference: inference.Config{Transport: "process"}})
	if p != nil || !errcode.Is(err, errcode.Usage) {
		t.Errorf("ForCase = %v, %v; want a usage error", p, err)
	}
}
