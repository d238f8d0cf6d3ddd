package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// scoreRun runs `murmur-eval score run --out out` with extra flags, as it
// is typed (no --cache-dir: score compiles nothing).
func scoreRun(t *testing.T, run, out string, extra ...string) result {
	t.Helper()
	r, _ := runE2E(t, append([]string{"score", run, "--out", out}, extra...), plainArgs())
	return r
}

// verdicts are a run's results rows by "case_id/epoch": the status and
// error code, and its scores rows' scorer, result, score and reason, in
// order.
func verdicts(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range readParquet(t, filepath.Join(dir, "results.parquet")).Rows {
		out[fmt.Sprintf("%v/%v", r["case_id"], r["epoch"])] = fmt.Sprintf("%v %v", r["status"], r["error_code"])
	}
	scores := readParquet(t, filepath.Join(dir, "scores.parquet")).Rows
	slices.SortStableFunc(scores, func(a, b map[string]any) int {
		return cmp.Or(strings.Compare(a["case_id"].(string), b["case_id"].(string)), cmp.Compare(a["epoch"].(int32), b["epoch"].(int32)))
	})
	for _, s := range scores {
		k := fmt.Sprintf("%v/%v", s["case_id"], s["epoch"])
		out[k] += fmt.Sprintf("\n  %v %v %v %v %q", s["scorer"], s["scorer_type"], s["result"], s["score"], s["reason"])
	}
	return out
}

// modelServer is a model endpoint that counts the requests it gets and
// answers none.
func modelServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		http.Error(w, "no model here", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// folderDigest hashes every entry beneath dir: its path, mode, link
// target or content. Equal digests: nothing was written there.
func folderDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d\n", p, fi.Mode(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "-> %s\n", target)
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestScoreReproducesTheRun scores the quickstart's run again: every
// verdict and score is the same, nothing asks a model (the capsule's
// endpoint is a counting server, the recordings are gone), RUN is not
// written to, the new run scores again alike, and diff, show --case,
// report and view read it.
func TestScoreReproducesTheRun(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	run, r := newFixture(t, qs).run("--progress", "none")
	if r.code != 0 {
		t.Fatalf("run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	url, requests := modelServer(t)
	useEndpoint(t, qs, url)
	if err := os.RemoveAll(filepath.Join(qs, "recordings")); err != nil {
		t.Fatal(err)
	}
	before := folderDigest(t, run)

	out := filepath.Join(reachableTempDir(t), "rescored")
	s := scoreRun(t, run, out)
	if s.code != 0 {
		t.Fatalf("score: exit %d\nstderr:\n%s", s.code, s.stderr)
	}
	t.Logf("run took %s, score %s", r.elapsed.Round(time.Millisecond), s.elapsed.Round(time.Millisecond))
	if got := requests.Load(); got != 0 {
		t.Errorf("score sent %d requests to the model endpoint, want none", got)
	}
	if diff := gocmp.Diff(verdicts(t, run), verdicts(t, out)); diff != "" {
		t.Errorf("re-scored verdicts differ from the run's (-run +score):\n%s", diff)
	}
	if after := folderDigest(t, run); after != before {
		t.Errorf("score changed files of RUN")
	}
	if !strings.Contains(s.stderr, "12 cases scored again (0 changed status)") || !strings.Contains(s.stderr, "1 case checked or judged again in copies") {
		t.Errorf("score's stderr lacks the tally:\n%s", s.stderr)
	}
	var runJSON struct {
		RunID  string            `json:"run_id"`
		Config map[string]string `json:"config"`
		Inputs map[string]string `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "run.json"))), &runJSON); err != nil {
		t.Fatal(err)
	}
	orig := readDigest(t, run)
	if runJSON.Config["rescore-of"] != orig.RunID || runJSON.Inputs["rescore_of"] != run {
		t.Errorf("run.json: rescore-of %q (%q), want %q (%q)", runJSON.Config["rescore-of"], runJSON.Inputs["rescore_of"], orig.RunID, run)
	}
	if d := readDigest(t, out); d.RunID != runJSON.RunID || d.RunID == orig.RunID || d.Cases != orig.Cases {
		t.Errorf("summary.json: run %s with %d cases, want run.json's %s (not %s) with %d", d.RunID, d.Cases, runJSON.RunID, orig.RunID, orig.Cases)
	}
	// The new run scores again too: its run.json names the capsule.
	again := filepath.Join(reachableTempDir(t), "again")
	if s := scoreRun(t, out, again); s.code != 0 {
		t.Errorf("score of the re-scored run: exit %d\nstderr:\n%s", s.code, s.stderr)
	} else if diff := gocmp.Diff(verdicts(t, run), verdicts(t, again)); diff != "" {
		t.Errorf("verdicts scored twice differ from the run's (-run +again):\n%s", diff)
	}
	for _, args := range [][]string{{"diff", run, out}, {"show", out, "--case", "calc-multiply"}, {"report", "-o", filepath.Join(t.TempDir(), "r.html"), run, out}, {"view", out, run, "-o", filepath.Join(t.TempDir(), "site")}} {
		if r, _ := runE2E(t, args, plainArgs()); r.code != 0 {
			t.Errorf("%s: exit %d\nstderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// TestScoreAppliesTheNewExpected edits a case's expected value and
// another's check command, and removes a third from the dataset: the
// edited cases' verdicts change (the new check ran), the removed one is
// scored by the manifest alone and named, the rest stay; RUN's summary
// marked interrupted, the re-scoring's is too.
func TestScoreAppliesTheNewExpected(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	run, r := newFixture(t, qs).run("--progress", "none")
	if r.code != 0 {
		t.Fatalf("run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	dataset := filepath.Join(qs, "cases.jsonl")
	editFile(t, dataset, `"expected": {"result_contains": "17.5"}`, `"expected": {"result_contains": "17.25"}`)
	editFile(t, dataset, `"check": "grep -qx -- '- eggs' notes/shopping.md"`, `"check": "grep -qx -- '- bread' notes/shopping.md"`)
	var kept []string
	for _, l := range readLines(t, dataset) {
		if !strings.Contains(l, `"case_id": "direct-answer"`) {
			kept = append(kept, l)
		}
	}
	writeFile(t, dataset, strings.Join(kept, "\n")+"\n")
	// As if RUN had been interrupted: its re-scoring is as incomplete.
	var summary map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(run, "summary.json"))), &summary); err != nil {
		t.Fatal(err)
	}
	summary["planned"], summary["complete"], summary["stopped"] = 20, false, "interrupted"
	b, _ := json.Marshal(summary)
	writeFile(t, filepath.Join(run, "summary.json"), string(b))

	out := filepath.Join(reachableTempDir(t), "rescored")
	s := scoreRun(t, run, out)
	if s.code != 0 {
		t.Fatalf("score: exit %d\nstderr:\n%s", s.code, s.stderr)
	}
	if d := readDigest(t, out); d.Planned != 20 || d.Complete || d.Stopped != "interrupted" || d.Cases != 12 {
		t.Errorf("summary.json of an interrupted run's re-scoring: planned %d, complete %v, stopped %q, %d cases; want 20, false, interrupted, 12",
			d.Planned, d.Complete, d.Stopped, d.Cases)
	}
	was, now := verdicts(t, run), verdicts(t, out)
	if !strings.HasPrefix(now["calc-precedence/1"], "failed") || !strings.Contains(now["calc-precedence/1"], "17.25") {
		t.Errorf("calc-precedence after its expected changed: %s", now["calc-precedence/1"])
	}
	if !strings.HasPrefix(now["direct-answer/1"], "passed") || strings.Contains(now["direct-answer/1"], "result_contains") {
		t.Errorf("direct-answer, no longer in the dataset, is not scored by the manifest alone: %s", now["direct-answer/1"])
	}
	if got := now["notes/round trip/1"]; !strings.HasPrefix(got, "failed") || !strings.Contains(got, `check check fail 0 "exit status 1"`) {
		t.Errorf("notes/round trip after its check changed: %s", got)
	}
	for k, v := range was {
		if k != "calc-precedence/1" && k != "direct-answer/1" && k != "notes/round trip/1" && now[k] != v {
			t.Errorf("%s changed: %s -> %s", k, v, now[k])
		}
	}
	for _, want := range []string{`case "calc-precedence" epoch 1: passed -> failed`, "no longer in the dataset", `case "direct-answer" epoch 1`} {
		if !strings.Contains(s.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
		}
	}
	// One flip is no significant regression: diff names it and exits 0.
	if d := runBinary(t, "diff", run, out); d.code != 0 || !strings.Contains(d.stdout, "pass→fail (1): calc-precedence") {
		t.Errorf("diff RUN NEW: exit %d, want 0 naming calc-precedence\n%s\n%s", d.code, d.stdout, d.stderr)
	}
}

// TestScoreDoesNotGuessASessionNotKept deletes one case's session folder:
// that case is an error with E-EVL-092 and no scores, named on stderr and
// in the summary's errors; the others are scored again; the error budget
// gives exit 3 as a run's would. A case whose trace.jsonl was replaced
// keeps its verdict (the journal's events are scored), and an --out
// inside RUN is refused.
func TestScoreDoesNotGuessASessionNotKept(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	run, r := newFixture(t, qs).run("--progress", "none")
	if r.code != 0 {
		t.Fatalf("run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	dir, ok := runfolder.SessionFolder(run, "calc-retry", "", 1, 1, "")
	if !ok {
		t.Fatal("calc-retry has no session folder")
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(real); err != nil {
		t.Fatal(err)
	}
	// A trace.jsonl a tool replaced: the run's own events are scored.
	multiply, ok := runfolder.SessionFolder(run, "calc-multiply", "", 1, 1, "")
	if !ok {
		t.Fatal("calc-multiply has no session folder")
	}
	writeFile(t, filepath.Join(multiply, "trace.jsonl"), `{"event_type":"session_end","exit_status":"failed"}`+"\n")
	if s := scoreRun(t, run, filepath.Join(run, "inside")); s.code != exitUsage {
		t.Errorf("score --out inside RUN: exit %d, want %d\n%s", s.code, exitUsage, s.stderr)
	}

	out := filepath.Join(reachableTempDir(t), "rescored")
	s := scoreRun(t, run, out)
	if s.code != exitErrorBudget {
		t.Errorf("score: exit %d, want %d\nstderr:\n%s", s.code, exitErrorBudget, s.stderr)
	}
	now := verdicts(t, out)
	if was := verdicts(t, run); now["calc-multiply/1"] != was["calc-multiply/1"] {
		t.Errorf("calc-multiply with its trace.jsonl replaced: %s, want the run's %s", now["calc-multiply/1"], was["calc-multiply/1"])
	}
	if got := now["calc-retry/1"]; got != "error "+errcode.NotRescored {
		t.Errorf("calc-retry without its session folder: %q, want an error %s and no scores", got, errcode.NotRescored)
	}
	if !strings.Contains(s.stderr, "its session folder was not kept") || !strings.Contains(s.stderr, `case "calc-retry" epoch 1`) {
		t.Errorf("stderr does not name the case not re-scored:\n%s", s.stderr)
	}
	d := readDigest(t, out)
	if len(d.Errors) != 1 || d.Errors[0].Code != errcode.NotRescored || d.Statuses["passed"] != 9 {
		t.Errorf("summary.json: errors %+v, statuses %v; want one %s and 9 passed", d.Errors, d.Statuses, errcode.NotRescored)
	}
}

// TestScoreMergedShards scores a run merged from two shards again: the
// session folders are found in the shards' folders, the capsule from the
// shards' run.json, and every verdict is the merged run's.
func TestScoreMergedShards(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	// A run first: it writes murmur.lock, which the shards' fingerprints
	// then share.
	if _, r := newFixture(t, qs).run("--progress", "none"); r.code != 0 {
		t.Fatalf("run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var shards []string
	for _, shard := range []string{"0/2", "1/2"} {
		out, r := newFixture(t, qs).run("--shard", shard, "--progress", "none")
		if r.code != 0 {
			t.Fatalf("shard %s: exit %d\nstderr:\n%s", shard, r.code, r.stderr)
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if m := runBinary(t, append([]string{"merge", "-o", merged}, shards...)...); m.code != 0 {
		t.Fatalf("merge: exit %d\nstderr:\n%s", m.code, m.stderr)
	}
	out := filepath.Join(reachableTempDir(t), "rescored")
	s := scoreRun(t, merged, out)
	if s.code != 0 {
		t.Fatalf("score: exit %d\nstderr:\n%s", s.code, s.stderr)
	}
	if diff := gocmp.Diff(verdicts(t, merged), verdicts(t, out)); diff != "" {
		t.Errorf("re-scored verdicts differ from the merged run's (-merged +score):\n%s", diff)
	}
	if r, _ := runE2E(t, []string{"show", out, "--case", "calc-multiply"}, plainArgs()); r.code != 0 || !strings.Contains(r.stdout, "calc-multiply") {
		t.Errorf("show --case on the re-scored merged run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestScoreJudgesAgain scores a judged run again with the agent's model
// gone: without a judge model it is refused (E-EVL-090), and with
// --run-anyway scored without the judge, warned of; with the judge
// live, only the judge is asked (the passed and failed cases once each,
// the case in error copied) and every verdict is the run's, its log in the
// new run's session copy and RUN untouched; with --replay of the run's
// recordings and the judge gone too, nothing is asked and the verdicts
// hold.
func TestScoreJudgesAgain(t *testing.T) {
	j := newJudged(t)
	t.Parallel()
	qs, dataset, model, judge, judgeFlags, env, calls := j.qs, j.dataset, j.model, j.judge, j.flags, j.env, j.calls
	rec := filepath.Join(t.TempDir(), "rec")
	run := filepath.Join(reachableTempDir(t), "run")
	if r, _ := runE2E(t, append([]string{qs, "--dataset", dataset, "--out", run, "--driver", "builtin", "--record", rec}, judgeFlags...), env); r.code != exitErrorBudget {
		t.Fatalf("run: exit %d, want %d (one judge error)\n%s", r.code, exitErrorBudget, r.stderr)
	}
	model.Close()
	before := folderDigest(t, run)

	refused, _ := runE2E(t, []string{"score", run, "--out", filepath.Join(reachableTempDir(t), "refused")}, env, plainArgs())
	if refused.code != exitUsage || !hasCode(refused.stderr, errcode.JudgeMissing) {
		t.Errorf("score without a judge model: exit %d, want %d with %s\n%s", refused.code, exitUsage, errcode.JudgeMissing, refused.stderr)
	}

	// --run-anyway scores without the judge, and says so: the case only
	// the judge failed passes, which is why it takes asking.
	unjudged := filepath.Join(reachableTempDir(t), "unjudged")
	anyway, _ := runE2E(t, []string{"score", run, "--out", unjudged, "--run-anyway"}, env, plainArgs())
	if !strings.Contains(anyway.stderr, "warning["+errcode.JudgeMissing+"]") {
		t.Errorf("score --run-anyway without a judge does not warn with %s:\n%s", errcode.JudgeMissing, anyway.stderr)
	}
	if got := resultsByCase(t, unjudged)["bad"]["status"]; got != "passed" {
		t.Errorf("bad, scored without its judge: %v, want passed", got)
	}

	asked := calls.Load()
	live := filepath.Join(reachableTempDir(t), "live")
	s, _ := runE2E(t, append([]string{"score", run, "--out", live}, judgeFlags...), env, plainArgs())
	if s.code != exitErrorBudget {
		t.Fatalf("score with the judge: exit %d, want %d\n%s", s.code, exitErrorBudget, s.stderr)
	}
	if n := calls.Load() - asked; n != 2 {
		t.Errorf("score asked the judge %d times, want 2 (good and bad)", n)
	}
	if diff := gocmp.Diff(verdicts(t, run), verdicts(t, live)); diff != "" {
		t.Errorf("re-judged verdicts differ from the run's (-run +score):\n%s", diff)
	}
	if log := readFile(t, filepath.Join(live, "cases", "good.e1.a1", "logs", "judge.jsonl")); strings.Count(log, "\n") != 2 || !strings.Contains(log, "It is 42.") {
		t.Errorf("the new run's session copy does not hold the run's and the new judge exchange:\n%s", log)
	}
	if folderDigest(t, run) != before {
		t.Error("score changed files of RUN")
	}

	judge.Close()
	replayed := filepath.Join(reachableTempDir(t), "replayed")
	s, _ = runE2E(t, append([]string{"score", run, "--out", replayed, "--replay", rec}, judgeFlags...), env, plainArgs())
	if s.code != exitErrorBudget {
		t.Fatalf("score replaying the judge: exit %d\n%s", s.code, s.stderr)
	}
	if strings.Contains(s.stderr, "differed from the ones recorded") {
		t.Errorf("the replayed judge requests differ from the run's recorded ones:\n%s", s.stderr)
	}
	if diff := gocmp.Diff(verdicts(t, run), verdicts(t, replayed)); diff != "" {
		t.Errorf("replayed verdicts differ from the run's (-run +score):\n%s", diff)
	}
	if n := calls.Load() - asked; n != 2 {
		t.Errorf("the replaying score asked the judge %d times", n-2)
	}
}
