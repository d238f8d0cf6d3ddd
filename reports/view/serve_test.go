package view

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHandler(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "run")
	genRun(t, run, "run1", []genCase{{id: "a/b c", answer: "<script>x</script>", toolOutput: "42"}})
	// A tool replaced a file of its session with a link out of the run.
	secret := filepath.Join(root, "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(run, "sessions", "ses_run1_000000", "out", "leak.txt")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	tests := []struct {
		path   string
		status int
		ctype  string
		says   string
	}{
		{"/", 200, "text/html; charset=utf-8", `"id":"a/b c"`},
		{"/" + pageHref("a/b c"), 200, "text/html; charset=utf-8", "&lt;script&gt;x&lt;/script&gt;"},
		{"/cases/nope.html", 404, "", ""},
		{"/raw/run/sessions/ses_run1_000000/out/result.txt", 200, "text/plain; charset=utf-8", "<script>x</script>"},
		{"/raw/run/sessions/ses_run1_000000/out/leak.txt", 404, "", ""},
		{"/raw/run/../secret", 404, "", ""},
	}
	for _, tt := range tests {
		resp, err := http.Get(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status && !(tt.status == 404 && resp.StatusCode >= 400) {
			t.Errorf("GET %s: %d, want %d", tt.path, resp.StatusCode, tt.status)
			continue
		}
		if tt.ctype != "" && resp.Header.Get("Content-Type") != tt.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", tt.path, resp.Header.Get("Content-Type"), tt.ctype)
		}
		if !strings.Contains(string(body), tt.says) || strings.Contains(string(body), "secret") && tt.status != 200 {
			t.Errorf("GET %s: the body does not say %q (or leaks the secret):\n%.500s", tt.path, tt.says, body)
		}
	}
	// The case page's raw links are the server's.
	resp, err := http.Get(srv.URL + "/" + pageHref("a/b c"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `href="../raw/run/sessions/ses_run1_000000/trace.jsonl"`) {
		t.Error("the served case page does not link its raw files under /raw/run/")
	}
}

func TestServeStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, "127.0.0.1:0", http.NotFoundHandler(), func(u string) { urls <- u }) }()
	u := <-urls
	if resp, err := http.Get(u); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	} else {
		resp.Body.Close()
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v after its context ended, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}
