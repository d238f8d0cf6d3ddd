package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// TestPacingPreparesAheadWithinTheWorkerBound runs the real binary against
// a model that takes 400 ms to answer, at --workers 2: the model never has
// more than two requests in flight, while it thinks the next cases'
// session folders are already staged (prepared ahead: more session folders
// than workers exist before the first answer), and every case passes
// (docs/architecture.md, "A run"; RATIONALE.md, "Why does the runner
// prepare cases ahead and finish them in quiet moments?").
func TestPacingPreparesAheadWithinTheWorkerBound(t *testing.T) {
	const workers, cases, latency = 2, 8, 400 * time.Millisecond
	out := filepath.Join(reachableTempDir(t), "run")
	var mu sync.Mutex
	inFlight, peak, requests, aheadSeen := 0, 0, 0, 0
	sessions := func() int {
		es, _ := os.ReadDir(filepath.Join(out, "sessions"))
		return len(es)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		inFlight++
		requests++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(latency) // the model's latency: what the pacer paces around
		mu.Lock()
		// Before any case has finished, a folder beyond the live ones
		// is a case prepared ahead.
		if n := sessions(); requests <= workers && n > workers {
			aheadSeen = max(aheadSeen, n)
		}
		inFlight--
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, apitest.OpenAICompletion("stop", "Hello there.", 20, 3))
	}))
	t.Cleanup(srv.Close)
	dir := openAICapsule(t, srv.URL, false)
	var lines strings.Builder
	for i := range cases {
		fmt.Fprintf(&lines, `{"case_id": "hello-%d", "task": "Say hello.", "expected": {"result_contains": "Hello"}}`+"\n", i)
	}
	dataset := filepath.Join(dir, "paced.jsonl")
	writeFile(t, dataset, lines.String())
	r := runBinary(t, dir, "--dataset", dataset, "--out", out, "--workers", fmt.Sprint(workers))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rows := resultsByCase(t, out)
	if len(rows) != cases {
		t.Fatalf("%d result rows, want %d", len(rows), cases)
	}
	for id, row := range rows {
		if row["status"] != "passed" {
			t.Errorf("%s: status %v", id, row["status"])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if peak != workers {
		t.Errorf("the model had at most %d requests in flight, want %d (--workers)", peak, workers)
	}
	if aheadSeen == 0 {
		t.Errorf("no case was prepared ahead while the first %d waited for the model", workers)
	}
	if aheadSeen > 2*workers {
		t.Errorf("%d session folders before the first answer, want at most %d", aheadSeen, 2*workers)
	}
}
