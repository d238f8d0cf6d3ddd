package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// scoresColumns is scores.parquet's contract (docs/output-columns.md).
var scoresColumns = []column{
	{"run_id", "utf8", false}, {"case_id", "utf8", false}, {"epoch", "int32", false},
	{"session_id", "utf8", false}, {"scorer", "utf8", false}, {"scorer_type", "utf8", false},
	{"result", "utf8", false}, {"score", "float64", false}, {"reason", "utf8", false},
	{"attempt", "int32", false}, {"judge_model", "utf8", true}, {"judge_input_tokens", "int64", true},
	{"judge_output_tokens", "int64", true}, {"judge_latency_ms", "float64", true}, {"judge_samples", "int32", true},
	{"judge_spread", "float64", true}, {"judge_split", "bool", true},
	{"variant", "utf8", true}, {"judge_cost_usd", "float64", true},
}

// checkScoringOutputs checks a finished quickstart run's scoring outputs
// against each other: scores.parquet (read with arrow-go) against every
// session's eval.jsonl (read with murmur's rules) and the case's status,
// then summary.json, summary.md and junit.xml.
func checkScoringOutputs(t *testing.T, out string, results table) {
	t.Helper()
	scores := readParquet(t, filepath.Join(out, "scores.parquet"))
	if diff := gocmp.Diff(scoresColumns, scores.Columns); diff != "" {
		t.Errorf("scores.parquet columns (-want +got):\n%s", diff)
	}
	byCase := map[string][]map[string]any{}
	for _, s := range scores.Rows {
		id, _ := s["case_id"].(string)
		byCase[id] = append(byCase[id], s)
	}
	for _, row := range results.Rows {
		id, _ := row["case_id"].(string)
		rows := byCase[id]
		allPass := len(rows) > 0
		for _, s := range rows {
			allPass = allPass && s["result"] == "pass"
			if s["session_id"] != row["session_id"] || s["run_id"] != row["run_id"] {
				t.Errorf("case %q: score row %v does not match its results row", id, s)
			}
		}
		if want := map[bool]string{true: "passed", false: "failed"}[allPass]; row["status"] != want {
			t.Errorf("case %q: status %v, but its scores say %s", id, row["status"], want)
		}
		f, err := os.Open(filepath.Join(out, fmt.Sprint(row["session_dir"]), "eval.jsonl"))
		if err != nil {
			t.Errorf("case %q: %v", id, err)
			continue
		}
		recs, err := scoring.ReadEvalRecords(f)
		f.Close()
		if err != nil {
			t.Errorf("case %q: eval.jsonl does not parse as murmur's records: %v", id, err)
			continue
		}
		if len(recs) != len(rows)+1 {
			t.Errorf("case %q: eval.jsonl has %d records, want %d scores + dataset_run", id, len(recs), len(rows))
			continue
		}
		for i, s := range rows {
			r := recs[i]
			if r.RecordType != "event_score" || r.Scorer != s["scorer"] || r.Result != s["result"] || *r.Score != s["score"] || *r.Reason != s["reason"] {
				t.Errorf("case %q: eval.jsonl line %d %+v disagrees with scores.parquet %v", id, i+1, r, s)
			}
			if r.Turn != int64(row["turns"].(int32)) {
				t.Errorf("case %q: eval.jsonl turn %d, want the session's %v turns", id, r.Turn, row["turns"])
			}
		}
		last := recs[len(recs)-1]
		if last.RecordType != "dataset_run" || *last.CaseID != id || *last.DatasetID != "quickstart" ||
			last.Overall != map[bool]string{true: "pass", false: "fail"}[allPass] {
			t.Errorf("case %q: dataset_run %+v", id, last)
		}
	}
	var names []string
	for _, s := range byCase["notes/round trip"] {
		names = append(names, fmt.Sprint(s["scorer"]))
	}
	if diff := gocmp.Diff([]string{"exit_ok", "turn_budget", "max_tokens", "result_contains", "file:notes/shopping.md", "check"}, names); diff != "" {
		t.Errorf("notes/round trip scorers (-want +got):\n%s", diff)
	}
	for _, s := range byCase["runaway-loop"] {
		if s["scorer"] == "exit_ok" && (s["result"] != "fail" || s["reason"] != "exit_status=max_turns_reached") {
			t.Errorf("runaway-loop exit_ok: %v, want a failure on max_turns_reached", s)
		}
	}

	d := readDigest(t, out)
	if d.PassRate.Passed != 10 || d.PassRate.Total != 12 || d.Statuses["failed"] != 2 || len(d.Failed) != 2 {
		t.Errorf("summary.json: pass rate %+v, statuses %v", d.PassRate, d.Statuses)
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !strings.Contains(string(md), "**Pass rate 83.3%**") {
		t.Errorf("summary.md: %v\n%s", err, md)
	}
	validateJUnit(t, filepath.Join(out, "junit.xml"))
}

func readDigest(t *testing.T, out string) reports.Digest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d reports.Digest
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	return d
}

// validateJUnit checks path against the JUnit schema with xmllint, which
// scripts/test-deps.sh installs: without it the test fails, unless the run
// opted out (internal/tooltest), when only this check is left out.
func validateJUnit(t *testing.T, path string) {
	t.Helper()
	bin, ok := tooltest.Find(t, "xmllint")
	if !ok {
		return
	}
	xsd := filepath.Join(moduleRoot(t), "reports", "testdata", "junit.xsd")
	if out, err := exec.Command(bin, "--noout", "--schema", xsd, path).CombinedOutput(); err != nil {
		t.Errorf("junit.xml does not validate against the JUnit schema: %v\n%s", err, out)
	}
}

func TestFailUnderGateAndShow(t *testing.T) {
	t.Parallel()
	qs := quickstart(t)
	out, r := newFixture(t, qs).run("--workers", "3", "--fail-under", "90%")
	if r.code != exitGateFailed {
		t.Fatalf("exit code %d, want %d (pass rate 83.3%% is under 90%%)\nstdout:\n%s\nstderr:\n%s", r.code, exitGateFailed, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "fail_under      FAILED  pass rate 83.3% (10 of 12 scored) is under 90.0%") {
		t.Errorf("stdout does not report the failed gate:\n%s", r.stdout)
	}
	d := readDigest(t, out)
	want := []reports.GateResult{
		{Gate: "max_error_rate", Passed: true, Detail: "0 of 12 cases (0.0%) in status error, timeout or over_budget; at most 0.0% allowed"},
		{Gate: "fail_under", Passed: false, Detail: "pass rate 83.3% (10 of 12 scored) is under 90.0%"},
	}
	if diff := gocmp.Diff(want, d.Gates); diff != "" {
		t.Errorf("summary.json gates (-want +got):\n%s", diff)
	}

	// show reads the run back: the same counts and gates.
	s := runBinary(t, "show", out)
	if s.code != exitOK || !strings.HasPrefix(s.stdout, "12 cases in ") || !strings.Contains(s.stdout, "10 passed, 2 failed") ||
		!strings.Contains(s.stdout, "fail_under      FAILED") || !regexp.MustCompile(`(?m)^  exit_ok +10/12 +83\.3% +\[55\.2–95\.3%\]$`).MatchString(s.stdout) {
		t.Errorf("show: exit %d\n%s\n%s", s.code, s.stdout, s.stderr)
	}
	s = runBinary(t, "show", filepath.Join(out, "results.parquet"), "--json")
	var shown reports.Digest
	if err := json.Unmarshal([]byte(s.stdout), &shown); err != nil || shown.PassRate != d.PassRate || len(shown.Scorers) != len(d.Scorers) {
		t.Errorf("show --json: %v\n%s", err, s.stdout)
	}
	if s := runBinary(t, "show", filepath.Join(out, "no-such-run")); s.code != exitUsage || !strings.Contains(s.stderr, "error[E-IO-001]") {
		t.Errorf("show of a missing run: exit %d\n%s", s.code, s.stderr)
	}
	// A passing threshold passes.
	if _, r := newFixture(t, qs).run("--workers", "3", "--fail-under", "0.8"); r.code != exitOK {
		t.Errorf("--fail-under 0.8: exit %d, want 0\n%s", r.code, r.stdout)
	}
}

func TestBadExpectedIsAUsageError(t *testing.T) {
	t.Parallel()
	e2eBinary(t)
	qs := copyCapsule(t, "examples/quickstart")
	// An unknown scorer type is reported once, as murmur does, not per case.
	f, err := os.OpenFile(filepath.Join(qs, "murmur.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("      - type: vibes\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ds := filepath.Join(t.TempDir(), "cases.jsonl")
	lines := `{"case_id": "a", "task": "x", "expected": {"result_contains": "ok"}}
{"case_id": "b", "task": "x", "expected": {"result_matches": "("}}
{"case_id": "c", "task": "x", "expected": {"files": {"../up.txt": true}}}
`
	if err := os.WriteFile(ds, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, qs, "--dataset", ds, "--replay", filepath.Join(qs, "recordings"), "--out", out)
	if r.code != exitUsage || !strings.Contains(r.stderr, "error[E-EVAL-001]") ||
		!strings.Contains(r.stderr, "cases.jsonl:2: expected.result_matches") || !strings.Contains(r.stderr, "cases.jsonl:3: expected.files") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "results.parquet")); err == nil {
		t.Errorf("results.parquet written, want nothing run")
	}
	if n := strings.Count(r.stderr, "unknown scorer type 'vibes' — skipping"); n != 1 {
		t.Errorf("the unknown scorer type is reported %d times, want once:\n%s", n, r.stderr)
	}
}

// TestRegressionGateOnEngineeredRuns runs three 200-case datasets through
// the real binary: a base where 150 cases pass; a head where 20 of those
// now fail (a real regression); and a head where 9 cases flip each way
// (pure noise). The gate must fail the first and pass the second, and diff
// must find exactly the engineered flips with exact McNemar p-values.
func TestRegressionGateOnEngineeredRuns(t *testing.T) {
	t.Parallel()
	qs := quickstart(t)
	const n = 200
	ids := make([]string, n)
	basePass := make([]bool, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("q%03d", i)
		basePass[i] = i%4 != 3
	}
	var regressed, noiseDown, noiseUp []string
	regressPass, noisePass := slices.Clone(basePass), slices.Clone(basePass)
	for i := range ids {
		switch {
		case basePass[i] && i%7 == 0 && len(regressed) < 20:
			regressPass[i] = false
			regressed = append(regressed, ids[i])
		}
		switch {
		case basePass[i] && i%11 == 1 && len(noiseDown) < 9:
			noisePass[i] = false
			noiseDown = append(noiseDown, ids[i])
		case !basePass[i] && i%8 == 7 && len(noiseUp) < 9:
			noisePass[i] = true
			noiseUp = append(noiseUp, ids[i])
		}
	}
	if len(regressed) != 20 || len(noiseDown) != 9 || len(noiseUp) != 9 {
		t.Fatalf("engineering: %d regressed, %d/%d noise", len(regressed), len(noiseDown), len(noiseUp))
	}

	base, r := engineeredRun(t, qs, "base", ids, basePass)
	if r.code != exitOK {
		t.Fatalf("base run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	regDir, reg := engineeredRun(t, qs, "regress", ids, regressPass, "--baseline", base)
	if reg.code != exitGateFailed {
		t.Fatalf("regression run: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", reg.code, exitGateFailed, reg.stdout, reg.stderr)
	}
	if !strings.Contains(reg.stdout, "REGRESSION") || !strings.Contains(reg.stdout, "baseline        FAILED") {
		t.Errorf("regression run's stdout lacks the diff or the gate:\n%s", reg.stdout)
	}
	noiseDir, noise := engineeredRun(t, qs, "noise", ids, noisePass, "--baseline", base)
	if noise.code != exitOK {
		t.Fatalf("noise run: exit %d, want 0\nstdout:\n%s", noise.code, noise.stdout)
	}

	d := runBinary(t, "diff", base, filepath.Join(regDir, "scores.parquet"), "--json")
	if d.code != exitGateFailed {
		t.Errorf("diff base regress: exit %d, want %d\n%s", d.code, exitGateFailed, d.stderr)
	}
	rep := parseDiff(t, d.stdout)
	for _, name := range []string{reports.OverallScorer, "result_contains"} {
		s := diffScorer(t, rep, name)
		if diff := gocmp.Diff(regressed, caseIDs(s.PassToFail)); diff != "" {
			t.Errorf("%s pass→fail (-engineered +found):\n%s", name, diff)
		}
		if len(s.FailToPass) != 0 || s.Paired != n || s.PValue != 1.9073486328125e-06 || !s.Regression || s.PairedChangePP != -10 {
			t.Errorf("%s: %d fail→pass, %d paired, p=%g, regression %v, change %v", name, len(s.FailToPass), s.Paired, s.PValue, s.Regression, s.PairedChangePP)
		}
	}
	if s := diffScorer(t, rep, "exit_ok"); s.Regression || s.PValue != 1 {
		t.Errorf("exit_ok did not change: %+v", s)
	}
	// Tolerating a 10-point drop, the same runs pass.
	if d := runBinary(t, "diff", base, regDir, "--max-drop", "10"); d.code != exitOK || !strings.Contains(d.stdout, "no regression") {
		t.Errorf("diff --max-drop 10: exit %d\n%s", d.code, d.stdout)
	}

	d = runBinary(t, "diff", base, noiseDir, "--json")
	if d.code != exitOK {
		t.Errorf("diff base noise: exit %d, want 0", d.code)
	}
	rep = parseDiff(t, d.stdout)
	s := diffScorer(t, rep, reports.OverallScorer)
	if gocmp.Diff(noiseDown, caseIDs(s.PassToFail)) != "" || gocmp.Diff(noiseUp, caseIDs(s.FailToPass)) != "" || s.PValue != 1 || s.Regression {
		t.Errorf("noise: pass→fail %v, fail→pass %v, p=%g, regression %v", caseIDs(s.PassToFail), caseIDs(s.FailToPass), s.PValue, s.Regression)
	}
	if dg := readDigest(t, regDir); dg.Baseline == nil || len(dg.Baseline.Regressions) != 2 {
		t.Errorf("regress summary.json baseline: %+v", dg.Baseline)
	}
}

// engineeredRun writes a dataset of one-turn cases whose recorded answers
// pass (hold the case's token) or not, runs it with extra flags into a run
// folder named name, and returns the folder and what the process did.
func engineeredRun(t *testing.T, qs, name string, ids []string, pass []bool, extra ...string) (string, result) {
	t.Helper()
	dir := filepath.Join(filepath.Dir(qs), "engineered-"+name)
	rec := filepath.Join(dir, "recordings")
	if err := os.MkdirAll(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	var ds strings.Builder
	for i, id := range ids {
		fmt.Fprintf(&ds, `{"case_id": %q, "task": "Say the token of %s.", "expected": {"result_contains": "token-%s"}}`+"\n", id, id, id)
		answer := "token-" + id
		if !pass[i] {
			answer = "I do not know."
		}
		line := fmt.Sprintf(`{"stop_reason": "end_turn", "content": [{"type": "text", "text": %q}], "usage": {"input_tokens": 50, "output_tokens": 5}}`+"\n", answer)
		if err := os.WriteFile(filepath.Join(rec, id+".jsonl"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dataset := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(dataset, []byte(ds.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(filepath.Dir(qs), "runs", name)
	return out, runBinary(t, append([]string{qs, "--dataset", dataset, "--replay", rec, "--out", out, "--workers", "2"}, extra...)...)
}

func parseDiff(t *testing.T, out string) reports.DiffReport {
	t.Helper()
	var r reports.DiffReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("diff --json: %v\n%s", err, out)
	}
	return r
}

func diffScorer(t *testing.T, r reports.DiffReport, name string) reports.ScorerDiff {
	t.Helper()
	for _, s := range r.Scorers {
		if s.Scorer == name {
			return s
		}
	}
	t.Fatalf("diff has no scorer %q", name)
	return reports.ScorerDiff{}
}

func caseIDs(keys []reports.CaseKey) []string {
	ids := []string{}
	for _, k := range keys {
		ids = append(ids, k.CaseID)
	}
	return ids
}
