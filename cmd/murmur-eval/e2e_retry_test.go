package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// TestRetriesOfHarnessErrors: a provider that redirects the first attempt
// of every other case yields those cases passed on their second attempt, the
// failed attempt kept as a row; the model's failures are never retried.
// --keep-sessions failed keeps the folders of the attempts that did not pass.
func TestRetriesOfHarnessErrors(t *testing.T) {
	dir := quickstart(t)
	t.Parallel()
	ids := datasetIDs(t, filepath.Join(dir, "cases.jsonl"))
	flaky := map[string]bool{}
	for i, id := range ids {
		flaky[id] = i%2 == 0
	}
	var mu sync.Mutex
	refused := map[string]bool{}
	srv := anthropicFromRecordings(t, dir, func(caseID string, turn int) *apitest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if turn != 0 || !flaky[caseID] || refused[caseID] {
			return nil
		}
		refused[caseID] = true
		// A redirect is a harness error (E-EVL-015); a 4xx would end the
		// session failed, as murmur's driver ends it, and not be retried.
		return &apitest.Reply{Status: 307, Header: map[string]string{"Location": "http://127.0.0.2:1/"}}
	})
	useEndpoint(t, dir, srv.URL)
	out := filepath.Join(reachableTempDir(t), "run")
	r := newFixture(t, dir).live().runInto(out, "--retries", "2", "--retry-backoff", "10ms", "--progress", "none", "--keep-sessions", "failed", "--driver", "builtin")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0: the retried errors do not count\nstderr:\n%s", r.code, r.stderr)
	}
	expected := readExpectedStatuses(t, filepath.Join(dir, "expected-statuses.json"))
	attempts := map[string][]map[string]any{}
	for _, row := range readParquet(t, filepath.Join(out, "results.parquet")).Rows {
		id := row["case_id"].(string)
		attempts[id] = append(attempts[id], row)
	}
	for _, id := range ids {
		rows := attempts[id]
		want := 1
		if flaky[id] {
			want = 2
		}
		if len(rows) != want {
			t.Errorf("case %q: %d attempts, want %d", id, len(rows), want)
			continue
		}
		for _, row := range rows {
			a := row["attempt"].(int32)
			_, err := os.Stat(filepath.Join(out, row["session_dir"].(string)))
			if kept := err == nil; kept != (row["status"] != "passed") {
				t.Errorf("case %q attempt %d (%v): session folder kept = %v; --keep-sessions failed keeps exactly those that did not pass", id, a, row["status"], kept)
			}
			switch {
			case int(a) < want && row["status"] != "error":
				t.Errorf("case %q attempt %d: status %v, want error", id, a, row["status"])
			case int(a) == want && row["status"] != expected[id]:
				t.Errorf("case %q last attempt %d: status %v, want %s", id, a, row["status"], expected[id])
			}
		}
	}
	d := readDigest(t, out)
	if d.Cases != len(ids) || d.Statuses["error"] != 0 {
		t.Errorf("summary counts %d cases, %d errors; want %d and 0 (only last attempts count)", d.Cases, d.Statuses["error"], len(ids))
	}
	// show reads the run back from its rows, every attempt's: it counts
	// the cases as the run did.
	shown := runBinary(t, "show", out, "--json")
	var sd struct {
		Cases    int            `json:"cases"`
		Statuses map[string]int `json:"statuses"`
	}
	if err := json.Unmarshal([]byte(shown.stdout), &sd); err != nil || sd.Cases != len(ids) || sd.Statuses["error"] != 0 {
		t.Errorf("show --json counts %d cases, %d errors (%v); want %d and 0, as the run's summary", sd.Cases, sd.Statuses["error"], err, len(ids))
	}
}
