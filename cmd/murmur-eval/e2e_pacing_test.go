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

// pacedRun is what a slow model saw of a run at --workers workers: the
// most requests it had in flight, and the most session folders that
// existed while the first wave's requests waited for it (before any case
// had finished, a folder beyond the live ones is a case prepared ahead).
type pacedRun struct {
	peak, firstWave int
}

// runPaced runs cases one-turn cases of an OpenAI capsule through the real
// binary with --workers workers and extra flags, against a model that
// takes latency to answer, checks that every case passed, and returns what
// the model saw.
func runPaced(t *testing.T, workers, cases int, latency time.Duration, flags ...string) pacedRun {
	t.Helper()
	out := filepath.Join(reachableTempDir(t), "run")
	var mu sync.Mutex
	var seen pacedRun
	inFlight, answered := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		inFlight++
		seen.peak = max(seen.peak, inFlight)
		mu.Unlock()
		time.Sleep(latency) // the model's latency: what the pacer paces around
		mu.Lock()
		// Counted only before any answer: once one is sent its case ends and
		// the worker starts the next, whatever the pacer.
		if answered == 0 {
			es, _ := os.ReadDir(filepath.Join(out, "sessions"))
			seen.firstWave = max(seen.firstWave, len(es))
		}
		answered++
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
	r := runBinary(t, append([]string{dir, "--dataset", dataset, "--out", out, "--workers", fmt.Sprint(workers), "--driver", "builtin"}, flags...)...)
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
	return seen
}

// TestPacingPreparesAheadWithinTheWorkerBound runs the real binary against
// a model that takes 400 ms to answer, at --workers 2: the model never has
// more than two requests in flight, while it thinks the next cases'
// session folders are already staged (prepared ahead: more session folders
// than workers exist before the first answer), and every case passes
// (docs/architecture.md, "A run"; RATIONALE.md, "Why does the runner
// prepare cases ahead and finish them in quiet moments?").
func TestPacingPreparesAheadWithinTheWorkerBound(t *testing.T) {
	const workers = 2
	seen := runPaced(t, workers, 8, 400*time.Millisecond)
	if seen.peak != workers {
		t.Errorf("the model had at most %d requests in flight, want %d (--workers)", seen.peak, workers)
	}
	if seen.firstWave <= workers {
		t.Errorf("no case was prepared ahead while the first %d waited for the model (%d session folders)", workers, seen.firstWave)
	}
	if seen.firstWave > 2*workers {
		t.Errorf("%d session folders before the first answer, want at most %d", seen.firstWave, 2*workers)
	}
}

// TestPacingSemaphoreRunsEachCaseStraightThrough runs the real binary with
// --pacing semaphore against a model that takes 300 ms to answer, at
// --workers 2: the model never has more than two requests in flight, no
// case is prepared ahead (no more session folders than workers while the
// first requests wait), and every case passes. A --pacing it does not know
// is a usage error.
func TestPacingSemaphoreRunsEachCaseStraightThrough(t *testing.T) {
	const workers = 2
	dir := openAICapsule(t, "http://127.0.0.1:9", false)
	writeFile(t, filepath.Join(dir, "one.jsonl"), `{"case_id": "a", "task": "Say hello."}`+"\n")
	if r := runBinary(t, dir, "--dataset", filepath.Join(dir, "one.jsonl"), "--out", filepath.Join(reachableTempDir(t), "bad"), "--pacing", "eager"); r.code != exitUsage || !strings.Contains(r.stderr, "--pacing") {
		t.Errorf("--pacing eager: exit %d, want %d naming --pacing\n%s", r.code, exitUsage, r.stderr)
	}
	seen := runPaced(t, workers, 6, 300*time.Millisecond, "--pacing", "semaphore")
	if seen.peak != workers {
		t.Errorf("the model had at most %d requests in flight, want %d (--workers)", seen.peak, workers)
	}
	if seen.firstWave != workers {
		t.Errorf("%d session folders while the first %d requests waited, want %d (nothing prepared ahead)", seen.firstWave, workers, workers)
	}
}
