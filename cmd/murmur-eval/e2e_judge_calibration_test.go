package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// TestJudgeCalibrationGates: through the real binary and a mock judge,
// --judge-labels calibrates the rubric's judge: summary.json's judges
// entry has the kappa, TPR and TNR of the labels' known confusion matrix;
// calibrated, its fails count toward --fail-under (exit 4); under a
// --judge-min-kappa it does not reach, the gate leaves it out and says so
// (exit 0) while results.parquet keeps the judge's fails, and the
// --baseline gate, against a run a lenient judge passed, leaves out the
// judge's regression the comparison still shows; diff does the same
// unless --judge-labels calibrates the judge; a label for a case the run
// does not have is a warning; a bad labels file is refused before any
// case (E-EVL-009).
func TestJudgeCalibrationGates(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	answers := map[string]string{}
	var lines []string
	for i := range 12 {
		id, answer := fmt.Sprintf("g%d", i+1), "It is 42." // the judge passes g1-g6
		if i >= 6 {
			id, answer = fmt.Sprintf("b%d", i-5), "It is 41." // and fails b1-b6
		}
		task := fmt.Sprintf("Answer case %s.", id)
		answers[task] = answer
		line, _ := json.Marshal(map[string]any{"case_id": id, "task": task, "expected": map[string]any{"rubric": "The answer says 42."}})
		lines = append(lines, string(line))
	}
	model := apitest.New(t, func(r apitest.Request) apitest.Reply {
		for task, answer := range answers {
			if strings.Contains(string(r.Body), task) {
				return apitest.Reply{Body: apitest.AnthropicMessage("end_turn", 50, 5, apitest.AnthropicText(answer))}
			}
		}
		return apitest.Reply{Status: 400, Body: apitest.AnthropicError("invalid_request_error", "unknown task")}
	})
	useEndpoint(t, qs, model.URL)
	var calls atomic.Int32
	judge := judgeByAnswer(t, &calls)
	dataset := filepath.Join(qs, "cases-calibrated.jsonl")
	writeFile(t, dataset, strings.Join(lines, "\n")+"\n")
	// People pass g1-g6, b5 and b6, fail b1-b4: both pass 6, judge fails
	// where people pass 2, both fail 4. n=12, p_o=10/12; the judge passes
	// 6/12, people 8/12: n²p_e=6·8+6·4=72, n²p_o=12·10=120;
	// kappa=(120-72)/(144-72)=2/3; TPR=6/8, TNR=4/4.
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	var lb strings.Builder
	for id, label := range map[string]string{"g1": "pass", "g2": "pass", "g3": "pass", "g4": "pass", "g5": "pass", "g6": "pass",
		"b1": "fail", "b2": "fail", "b3": "fail", "b4": "fail", "b5": "pass", "b6": "pass", "ghost": "pass"} {
		fmt.Fprintf(&lb, `{"case_id": %q, "scorer": "llm_judge", "label": %q}`+"\n", id, label)
	}
	writeFile(t, labels, lb.String())
	// A lenient judge passes every case: the baseline the judge regresses from.
	lenient := apitest.New(t, func(apitest.Request) apitest.Reply {
		return apitest.Reply{Body: apitest.OpenAICompletion("tool_calls", "", 300, 20, apitest.OpenAIToolCall("call_1", "submit_verdict", `{"score":0.9,"reason":"fine"}`))}
	})
	judgeAt := func(url, out string, more ...string) []string {
		return append([]string{qs, "--dataset", dataset, "--out", filepath.Join(reachableTempDir(t), out), "--driver", "builtin",
			"--judge-provider", "openai", "--judge-endpoint", url, "--judge-model", "judge-1", "--fail-under", "0.6"}, more...)
	}
	args := func(out string, more ...string) []string { return judgeAt(judge.URL, out, more...) }
	env := withEnv("MURMUR_EVAL_JUDGE_API_KEY=judge-key")
	base := judgeAt(lenient.URL, "base")
	if r, _ := runE2E(t, base, env); r.code != exitOK {
		t.Fatalf("the lenient judge's run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	calibrated := args("calibrated", "--judge-labels", labels)
	r, _ := runE2E(t, calibrated, env)
	if r.code != exitGateFailed {
		t.Fatalf("calibrated judge, 6 of 12 passed under --fail-under 0.6: exit %d, want %d\n%s\n%s", r.code, exitGateFailed, r.stdout, r.stderr)
	}
	j := judgeEntry(t, calibrated[4])
	c := j.Calibration
	if !j.Calibrated || j.Model != "judge-1" || j.Cases != 12 || c == nil || c.N != 12 || !nearly(c.Agreement, 10.0/12) ||
		c.Kappa == nil || !nearly(*c.Kappa, 2.0/3) || c.TPR == nil || !nearly(*c.TPR, 0.75) || c.TNR == nil || *c.TNR != 1 {
		t.Errorf("judges entry %+v, calibration %+v; want calibrated, n 12, agreement 10/12, kappa 2/3, TPR 0.75, TNR 1", j, c)
	}
	for _, want := range []string{"n=12 agreement 83.3% kappa 0.67 TPR 75.0% TNR 100.0%", "calibrated (kappa >= 0.6)",
		"pass rate 50.0% (6 of 12 scored) is under 60.0%", `name a case, epoch or scorer the run does not have`, `case "ghost" is not in the run`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the calibrated run's summary does not say %q:\n%s", want, r.stdout)
		}
	}

	strict := args("strict", "--judge-labels", labels, "--judge-min-kappa", "0.7", "--baseline", base[4])
	r, _ = runE2E(t, strict, env)
	if r.code != exitOK {
		t.Fatalf("uncalibrated judge left out: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"uncalibrated: kappa 0.67 < 0.7", "--fail-under and --baseline leave out the uncalibrated judge scorer: llm_judge",
		"pass rate 100.0% (12 of 12 scored) is at least 60.0%; left out uncalibrated judge scorer(s) llm_judge (kappa 0.67 < 0.7); 6 cases only they failed counted as passed",
		"no scorer regressed against " + base[4], "; left out uncalibrated judge scorer(s) llm_judge (kappa 0.67 < 0.7)\n",
		"regression"} { // the comparison shown keeps the judge's regression
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the strict run's summary does not say %q:\n%s", want, r.stdout)
		}
	}
	if md := readFile(t, filepath.Join(strict[4], "summary.md")); !strings.Contains(md, "⚠️ uncalibrated: kappa 0.67 &lt; 0.7; left out") {
		t.Errorf("summary.md does not mark the judge uncalibrated:\n%s", md)
	}
	if rows := resultsByCase(t, strict[4]); rows["b1"]["status"] != "failed" || rows["g1"]["status"] != "passed" {
		t.Errorf("results.parquet: b1 %v, g1 %v; want the judge's verdicts kept (failed, passed)", rows["b1"]["status"], rows["g1"]["status"])
	}

	// diff: the judge's regression (6 pass→fail, p=0.03) counts only
	// when --judge-labels calibrates it.
	d := runBinary(t, "diff", base[4], strict[4])
	if d.code != exitOK || !strings.Contains(d.stdout, "the regression check left out uncalibrated judge scorer(s) llm_judge (no labels (--judge-labels)); regressed without them: none") {
		t.Errorf("diff without labels: exit %d, want 0 and the judge left out\n%s\n%s", d.code, d.stdout, d.stderr)
	}
	d = runBinary(t, "diff", base[4], strict[4], "--judge-labels", labels)
	if d.code != exitGateFailed || strings.Contains(d.stdout, "left out") {
		t.Errorf("diff with labels that calibrate the judge: exit %d, want %d\n%s\n%s", d.code, exitGateFailed, d.stdout, d.stderr)
	}

	before := calls.Load()
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	writeFile(t, bad, `{"case_id": "g1", "scorer": "llm_judge", "label": "yes"}`+"\n")
	r, _ = runE2E(t, args("bad", "--judge-labels", bad), env)
	if r.code != exitUsage || !hasCode(r.stderr, "E-EVL-009") || !strings.Contains(r.stderr, bad+`:1: "label" is "yes"`) {
		t.Errorf("a bad labels file: exit %d, want 2 with E-EVL-009 at its line\n%s", r.code, r.stderr)
	}
	if n := calls.Load() - before; n != 0 {
		t.Errorf("the refused run sent %d judge requests", n)
	}
}

// judgeEntry is the one judges entry of a run's summary.json.
func judgeEntry(t *testing.T, run string) judgeSummary {
	t.Helper()
	var s struct {
		Judges []judgeSummary `json:"judges"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(run, "summary.json"))), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Judges) != 1 {
		t.Fatalf("summary.json has %d judges, want 1: %+v", len(s.Judges), s.Judges)
	}
	return s.Judges[0]
}

// judgeSummary is summary.json's judges entry, decoded independently of
// package reports.
type judgeSummary struct {
	Scorer      string `json:"scorer"`
	Model       string `json:"model"`
	Cases       int    `json:"cases"`
	Calibrated  bool   `json:"calibrated"`
	Calibration *struct {
		N         int      `json:"n"`
		Agreement float64  `json:"agreement"`
		Kappa     *float64 `json:"kappa"`
		TPR       *float64 `json:"tpr"`
		TNR       *float64 `json:"tnr"`
	} `json:"calibration"`
}

func nearly(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
