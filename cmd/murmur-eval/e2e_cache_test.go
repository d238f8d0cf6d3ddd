package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCacheSecondRunSendsNothing runs the quickstart twice with one
// --cache folder against a local stand-in for Anthropic's Messages API:
// the first run asks the model for every turn and fills the cache; the
// second sends the model no request but model-error's (a failed turn is
// never cached, so it is asked again), gives the same rows (statuses,
// tokens, scores), counts every other turn as a hit, and still records
// every cached turn into --record.
func TestCacheSecondRunSendsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	srv := anthropicFromRecordings(t, dir, nil)
	useEndpoint(t, dir, srv.URL)
	cases := filepath.Join(dir, "cases.jsonl")
	cache := filepath.Join(t.TempDir(), "turns")
	run := func(name string, extra ...string) (string, result) {
		out := filepath.Join(reachableTempDir(t), name)
		args := append([]string{dir, "--dataset", cases, "--cache", cache, "--out", out, "--workers", "4", "--driver", "builtin"}, extra...)
		r := runBinary(t, args...)
		if r.code != 0 {
			t.Fatalf("%s run: exit %d\nstderr:\n%s", name, r.code, r.stderr)
		}
		return out, r
	}
	cold, _ := run("cold")
	sent := len(srv.Requests())
	if sent == 0 {
		t.Fatal("cold run: the model got no request")
	}
	rec := filepath.Join(t.TempDir(), "recordings")
	warm, r := run("warm", "--record", rec)
	for _, req := range srv.Requests()[sent:] {
		if !strings.Contains(string(req.Body), "What is 2 + 2?") { // model-error's task
			t.Errorf("warm run: a request reached the model: %.200s", req.Body)
		}
	}
	if got := len(srv.Requests()) - sent; got != 1 {
		t.Errorf("warm run: %d requests reached the model, want model-error's failed turn only", got)
	}

	a, b := resultsByCase(t, cold), resultsByCase(t, warm)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("rows: cold %d, warm %d", len(a), len(b))
	}
	cols := []string{"status", "exit_status", "error_code", "turns", "input_tokens", "output_tokens", "tool_calls", "model",
		"provider_input_tokens", "provider_output_tokens"}
	for id, row := range a {
		for _, col := range cols {
			if b[id][col] != row[col] {
				t.Errorf("%s: %s: warm %v, cold %v", id, col, b[id][col], row[col])
			}
		}
		if id == "model-error" { // its one turn failed: asked each time
			if got := [2]int64{toInt(b[id]["cache_hits"]), toInt(b[id]["cache_misses"])}; got != [2]int64{0, 1} {
				t.Errorf("%s: warm cache hits and misses %v, want [0 1]", id, got)
			}
			continue
		}
		if got, want := toInt(b[id]["cache_hits"]), toInt(row["cache_misses"]); got != want || got == 0 && toInt(row["turns"]) > 0 {
			t.Errorf("%s: warm cache_hits %d, want the cold run's cache_misses %d", id, got, want)
		}
		if got := toInt(b[id]["cache_misses"]); got != 0 {
			t.Errorf("%s: warm cache_misses %d, want 0", id, got)
		}
		if got := toInt(row["cache_hits"]); got != 0 {
			t.Errorf("%s: cold cache_hits %d, want 0", id, got)
		}
		if lines := countLines(t, recordingPath(rec, id)); int64(lines) != toInt(b[id]["cache_hits"]) {
			t.Errorf("%s: %d recorded turns, want the %d cached", id, lines, toInt(b[id]["cache_hits"]))
		}
	}
	if diff := cmp.Diff(scoresByCase(t, warm), scoresByCase(t, cold)); diff != "" {
		t.Errorf("scores (-warm +cold):\n%s", diff)
	}
	var sum struct {
		Cache struct {
			Dir          string
			Hits, Misses int64
			Corrupt      int64
		} `json:"cache"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(warm, "summary.json"))), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Cache.Dir != cache || sum.Cache.Hits == 0 || sum.Cache.Misses != 1 || sum.Cache.Corrupt != 0 {
		t.Errorf("warm summary.json cache: got %+v, want dir %s, hits > 0, model-error's miss", sum.Cache, cache)
	}
	if line := fmt.Sprintf("cache: %d hits, 1 miss (%s)", sum.Cache.Hits, cache); !strings.Contains(r.stdout, line) {
		t.Errorf("warm terminal summary: no %q in\n%s", line, r.stdout)
	}
}

// TestCacheRefusedWithReplay: --replay stays strict, so --cache with it is
// a usage error before any case.
func TestCacheRefusedWithReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--replay", filepath.Join(dir, "recordings"),
		"--cache", filepath.Join(t.TempDir(), "turns"), "--out", out)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--replay and --cache") {
		t.Errorf("exit %d, want %d with --replay and --cache refused\nstderr:\n%s", r.code, exitUsage, r.stderr)
	}
}

// scoresByCase is a run's scores.parquet as "case_id/scorer" to result
// and score.
func scoresByCase(t *testing.T, out string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, s := range readParquet(t, filepath.Join(out, "scores.parquet")).Rows {
		got[fmt.Sprint(s["case_id"], "/", s["scorer"])] = fmt.Sprint(s["result"], " ", s["score"])
	}
	return got
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case int32:
		return int64(n)
	case int64:
		return n
	}
	return -1
}

// countLines is the number of lines of the file at path, 0 when there is
// none.
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// TestCacheJudge: the judge's requests go through the cache too: a second
// judged run with the same --cache sends neither the model nor the judge
// a request, and gives the same verdicts.
func TestCacheJudge(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	j := newJudged(t)
	t.Parallel()
	model, judge, env, calls := j.model, j.judge, j.env, j.calls
	cache := filepath.Join(t.TempDir(), "turns")
	args := append([]string{j.qs, "--dataset", j.dataset, "--driver", "builtin", "--cache", cache}, j.flags...)
	var runs []string
	for _, name := range []string{"cold", "warm"} {
		out := filepath.Join(reachableTempDir(t), name)
		r, _ := runE2E(t, append(args, "--out", out), env)
		if r.code != exitErrorBudget {
			t.Fatalf("%s run: exit %d, want %d (one harness error)\n%s", name, r.code, exitErrorBudget, r.stderr)
		}
		checkJudged(t, out)
		runs = append(runs, out)
		if name == "cold" {
			model.Close()
			judge.Close()
		}
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("%d judge requests over both runs, want the cold run's 4", n)
	}
	if diff := cmp.Diff(scoresByCase(t, runs[1]), scoresByCase(t, runs[0])); diff != "" {
		t.Errorf("scores (-warm +cold):\n%s", diff)
	}
	cold, warm := resultsByCase(t, runs[0]), resultsByCase(t, runs[1])
	// One model turn each, and the judge's request (broken's twice, with
	// its repair).
	if got := [3]int64{toInt(warm["good"]["cache_hits"]), toInt(warm["bad"]["cache_hits"]), toInt(warm["broken"]["cache_hits"])}; got != [3]int64{2, 2, 3} {
		t.Errorf("warm cache_hits of good, bad, broken: got %v, want [2 2 3]", got)
	}
	for id, row := range warm {
		if got, want := toInt(row["cache_hits"]), toInt(cold[id]["cache_misses"]); got != want || toInt(row["cache_misses"]) != 0 {
			t.Errorf("%s: warm cache hits %d and misses %d, want %d and 0", id, got, toInt(row["cache_misses"]), want)
		}
	}
}
