package drivertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/driver"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// limitsServer answers /big with a 100 MB body, /endless with a body that
// never ends (a chunk every 5 ms), /redirect with a 302 to elsewhere, and
// counts the body bytes it managed to write.
func limitsServer(t *testing.T, elsewhere string) (*httptest.Server, *atomic.Int64) {
	var written atomic.Int64
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = 'x'
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big/chat/completions":
			w.Header().Set("Content-Type", "application/json")
			for range 100 {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		case "/endless/chat/completions":
			w.Header().Set("Content-Type", "text/event-stream")
			for {
				n, err := w.Write([]byte(`data: {"choices":[{"index":0,"delta":{"content":"."},"finish_reason":null}]}` + "\n\n"))
				written.Add(int64(n))
				if err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		case "/redirect/chat/completions":
			http.Redirect(w, r, elsewhere+"/chat/completions", http.StatusFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &written
}

// TestDriverHTTPLimits: the limits of wasi:http hold for a real driver's
// turn. A 100 MB answer is cut at the default 16 MiB body limit (the
// server cannot write it all; sandbox/component's TestHTTPErrors shows the
// error-code is the body size) and the driver's turn fails as murmur's
// driver fails it (a stream error); an answer that never ends is stopped at the
// driver's deadline; a redirect to a host outside the allow list is handed
// to the driver, not followed (that host never hears of it), and murmur's
// driver reads the 3xx body as an empty answer.
func TestDriverHTTPLimits(t *testing.T) {
	c := compileFixture(t)
	var elsewhereHits atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhereHits.Add(1)
	}))
	defer elsewhere.Close()
	srv, written := limitsServer(t, elsewhere.URL)
	req := &inference.Request{MaxTokens: 64, Model: "gpt-4o", Messages: []inference.Message{inference.UserMessage("hi")}}
	turn := func(t *testing.T, path string, deadline time.Duration) (*fixture, *inference.Response, error) {
		f := bind(t, c, srv.URL+path, component.NewHTTPClient())
		f.deadline = deadline
		p, err := driver.New(nil).ForCase(context.Background(), inference.Case{ID: "c", Driver: f,
			Inference: inference.Config{Transport: "http", Endpoint: srv.URL + path, DriverArtifact: "murmur-driver-openai"}})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Complete(context.Background(), req, inference.NopObserver{})
		return f, resp, err
	}

	t.Run("100 MB answer", func(t *testing.T) {
		written.Store(0)
		start := time.Now()
		_, resp, err := turn(t, "/big", 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !resp.DriverFailed || !jsonErrorHas(resp.Error, "driver: failed to read response stream: StreamError::LastOperationFailed") {
			t.Errorf("got %+v, want the driver failed reading the stream", resp)
		}
		if w := written.Load(); w >= 100<<20 {
			t.Errorf("the server wrote all %d bytes", w)
		}
		t.Logf("refused after %v, the server wrote %d MiB", time.Since(start).Round(time.Millisecond), written.Load()>>20)
	})

	t.Run("endless answer", func(t *testing.T) {
		start := time.Now()
		_, _, err := turn(t, "/endless", 700*time.Millisecond)
		if !errcode.Is(err, errcode.RunAgentLoop) || !errors.Is(err, sandbox.ErrDeadline) {
			t.Fatalf("got %v, want E-RUN-007 driver invocation failed at the deadline", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("stopped after %v", d)
		}
	})

	t.Run("redirect outside the allow list", func(t *testing.T) {
		f, resp, err := turn(t, "/redirect", 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if resp.DriverFailed || resp.StopReason != inference.StopEndTurn || string(resp.Content) != "[]" {
			t.Errorf("got %+v, want murmur's empty end_turn", resp)
		}
		if elsewhereHits.Load() != 0 || len(f.denied) != 0 {
			t.Errorf("the redirect was followed: %d hits elsewhere, denied %v", elsewhereHits.Load(), f.denied)
		}
	})
}

// jsonErrorHas says whether text, a canonical error response, has an error
// message starting with prefix.
func jsonErrorHas(text, prefix string) bool {
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal([]byte(text), &e) == nil && strings.HasPrefix(e.Error, prefix)
}
