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
// (exit 0) while results.parquet keeps the judge's fails; a label for a
// case the run does not have is a warning; a bad labels file is refused
// before any case (E-EVL-009).
func TestJudgeCalibrationGates(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	answers := map[string]string{}
	var lines []string
	for i := range 6 {
		id, answer := fmt.Sprintf("g%d", i+1), "It is 42." // the judge passes g1-g3
		if i >= 3 {
			id, answer = fmt.Sprintf("b%d", i-2), "It is 41." // and fails b1-b3
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
	// People pass g1-g3 and b3, fail b1 and b2: both pass 3, judge fails
	// where people pass 1, both fail 2. n=6, p_o=5/6; the judge passes
	// 3/6, people 4/6: p_e=(3·4+3·2)/36=1/2; kappa=(5/6-1/2)/(1/2)=2/3;
	// TPR=3/4, TNR=2/2.
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	var lb strings.Builder
	for id, label := range map[string]string{"g1": "pass", "g2": "pass", "g3": "pass", "b1": "fail", "b2": "fail", "b3": "pass", "ghost": "pass"} {
		fmt.Fprintf(&lb, `{"case_id": %q, "scorer": "llm_judge", "label": %q}`+"\n", id, label)
	}
	writeFile(t, labels, lb.String())
	args := func(out string, more ...string) []string {
		return append([]string{qs, "--dataset", dataset, "--out", filepath.Join(reachableTempDir(t), out), "--driver", "builtin",
			"--judge-provider", "openai", "--judge-endpoint", judge.URL, "--judge-model", "judge-1", "--fail-under", "0.6"}, more...)
	}
	env := withEnv("MURMUR_EVAL_JUDGE_API_KEY=judge-key")

	calibrated := args("calibrated", "--judge-labels", labels)
	r, _ := runE2E(t, calibrated, env)
	if r.code != exitGateFailed {
		t.Fatalf("calibrated judge, 3 of 6 passed under --fail-under 0.6: exit %d, want %d\n%s\n%s", r.code, exitGateFailed, r.stdout, r.stderr)
	}
	j := judgeEntry(t, calibrated[4])
	c := j.Calibration
	if !j.Calibrated || j.Model != "judge-1" || j.Cases != 6 || c == nil || c.N != 6 || !nearly(c.Agreement, 5.0/6) ||
		c.Kappa == nil || !nearly(*c.Kappa, 2.0/3) || c.TPR == nil || !nearly(*c.TPR, 0.75) || c.TNR == nil || *c.TNR != 1 {
		t.Errorf("judges entry %+v, calibration %+v; want calibrated, n 6, agreement 5/6, kappa 2/3, TPR 0.75, TNR 1", j, c)
	}
	for _, want := range []string{"n=6 agreement 83.3% kappa 0.67 TPR 75.0% TNR 100.0%", "calibrated (kappa >= 0.6)",
		"pass rate 50.0% (3 of 6 scored) is under 60.0%", `name a case, epoch or scorer the run does not have`, `case "ghost" is not in the run`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the calibrated run's summary does not say %q:\n%s", want, r.stdout)
		}
	}

	strict := args("strict", "--judge-labels", labels, "--judge-min-kappa", "0.7")
	r, _ = runE2E(t, strict, env)
	if r.code != exitOK {
		t.Fatalf("uncalibrated judge left out: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"uncalibrated: kappa 0.67 < 0.7", "the gates leave out the uncalibrated judge scorer: llm_judge",
		"pass rate 100.0% (6 of 6 scored) is at least 60.0%; left out uncalibrated judge scorer(s) llm_judge (kappa 0.67 < 0.7); 3 cases only they failed counted as passed"} {
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
