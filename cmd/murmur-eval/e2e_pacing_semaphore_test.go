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

// TestPacingSemaphoreRunsEachCaseStraightThrough runs the real binary with
// --pacing semaphore against a model that takes 300 ms to answer, at
// --workers 2: the model never has more than two requests in flight, no
// case is prepared ahead (no more session folders than workers while the
// first requests wait), and every case passes. A --pacing it does not know
// is a usage error.
func TestPacingSemaphoreRunsEachCaseStraightThrough(t *testing.T) {
	const workers, cases, latency = 2, 6, 300 * time.Millisecond
	out := filepath.Join(reachableTempDir(t), "run")
	var mu sync.Mutex
	inFlight, peak, requests, firstWave := 0, 0, 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		inFlight++
		requests++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(latency) // the model's latency: what the pacer paces around
		mu.Lock()
		if requests <= workers {
			es, _ := os.ReadDir(filepath.Join(out, "sessions"))
			firstWave = max(firstWave, len(es))
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
	if r := runBinary(t, dir, "--dataset", dataset, "--out", filepath.Join(reachableTempDir(t), "bad"), "--pacing", "eager"); r.code != exitUsage || !strings.Contains(r.stderr, "--pacing") {
		t.Errorf("--pacing eager: exit %d, want %d naming --pacing\n%s", r.code, exitUsage, r.stderr)
	}
	r := runBinary(t, dir, "--dataset", dataset, "--out", out, "--workers", fmt.Sprint(workers), "--pacing", "semaphore")
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
	if firstWave != workers {
		t.Errorf("%d session folders while the first %d requests waited, want %d (nothing prepared ahead)", firstWave, workers, workers)
	}
}
