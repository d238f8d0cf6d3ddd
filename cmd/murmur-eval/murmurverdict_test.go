package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/scoring"
)

// TestMurmurVerdictDifferences runs the real binary on two datasets whose
// verdicts murmur's own rules would give otherwise, and reads the
// murmur_overall / murmur_difference columns back with an independent
// reader and the counts from summary.json (issue 17, Deliver 7).
func TestMurmurVerdictDifferences(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	summary := func(t *testing.T, out string) map[string]any {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			M map[string]any `json:"murmur_differences"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		return d.M
	}
	check := func(t *testing.T, out string, wantStatus, wantOverall, wantDiff string, n int) {
		t.Helper()
		rows := readParquet(t, filepath.Join(out, "results.parquet")).Rows
		if len(rows) != n {
			t.Fatalf("%d rows, want %d", len(rows), n)
		}
		for _, r := range rows {
			if r["status"] != wantStatus || r["murmur_overall"] != wantOverall || r["murmur_difference"] != wantDiff {
				t.Errorf("%v: status %v, murmur_overall %v, murmur_difference %v; want %s, %s, %s",
					r["case_id"], r["status"], r["murmur_overall"], r["murmur_difference"], wantStatus, wantOverall, wantDiff)
			}
		}
		m := summary(t, out)
		reasons, _ := m["reasons"].([]any)
		if m["cases"] != float64(n) || len(reasons) != 1 || reasons[0].(map[string]any)["reason"] != wantDiff {
			t.Errorf("summary.json murmur_differences = %v, want %d cases for %s", m, n, wantDiff)
		}
	}

	// The quickstart configures exit_ok: a session whose model failed, or
	// that ran out of turns, fails it here and passes murmur's hook.
	t.Run("exit_ok on failed sessions", func(t *testing.T) {
		qs := quickstart(t)
		t.Parallel()
		f := newFixture(t, qs).withData(filepath.Join(t.TempDir(), "cases.jsonl"), filepath.Join(qs, "recordings")).writeCases(
			`{"case_id": "model-error", "task": "What is 2 + 2?", "expected": {"result_matches": ".*"}}`,
			`{"case_id": "runaway-loop", "task": "Count to ten.", "expected": {"result_matches": ".*"}}`)
		out, r := f.run()
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		check(t, out, "failed", scoring.OverallPass, scoring.DiffExitOK, 2)
	})

	// No scorer at all: murmur reports no_scores, murmur-eval scores by
	// exit_ok.
	t.Run("no scorer", func(t *testing.T) {
		e2eBinary(t)
		t.Parallel()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(workspaceCapsule), 0o644); err != nil {
			t.Fatal(err)
		}
		writeScripted(t, dir, []scripted{{id: "plain"}, {id: "other"}})
		out := filepath.Join(reachableTempDir(t), "run")
		r := newFixture(t, dir).runInto(out)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		check(t, out, "passed", scoring.OverallNoScores, scoring.DiffNoScores, 2)
	})
}
