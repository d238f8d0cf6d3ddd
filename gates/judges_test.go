package gates

import (
	"fmt"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// judgedCase is one case of a constructed run: exit_ok's verdict (absent
// when none) and a judge scorer's.
type judgedCase struct {
	exitOK, judge *bool
	judgeName     string
}

// yes and no are exit_ok's and the judge's verdicts, addressable.
var yes, no = ptr(true), ptr(false)

func ptr(v bool) *bool { return &v }

// judgedRun builds a run's rows from its cases: case c<i>, epoch 1; a case
// passes when each of its scores passes.
func judgedRun(cases []judgedCase) *reports.RunData {
	r := &reports.RunData{Path: "run", Results: []reports.ResultRow{}, Scores: []reports.ScoreRow{}}
	for i, c := range cases {
		id := fmt.Sprintf("c%02d", i)
		status := reports.StatusPassed
		add := func(name, typ string, pass bool) {
			res := reports.ResultPass
			if !pass {
				res, status = reports.ResultFail, reports.StatusFailed
			}
			r.Scores = append(r.Scores, reports.ScoreRow{RunID: "r", CaseID: id, Epoch: 1, Attempt: 1, Scorer: name, ScorerType: typ, Result: res})
		}
		if c.exitOK != nil {
			add("exit_ok", "exit_ok", *c.exitOK)
		}
		if c.judge != nil {
			add(c.judgeName, scoring.TypeLLMJudge, *c.judge)
		}
		r.Results = append(r.Results, reports.ResultRow{RunID: "r", CaseID: id, Epoch: 1, Attempt: 1, Status: status})
	}
	return r
}

// repeat is n copies of c.
func repeat(n int, c judgedCase) []judgedCase {
	out := make([]judgedCase, n)
	for i := range out {
		out[i] = c
	}
	return out
}

// digestOf is the run's digest, its judges calibrated against labels
// ("" for none) at kappa 0.6.
func digestOf(t *testing.T, r *reports.RunData, labels string) *reports.Digest {
	t.Helper()
	var s reports.Summary
	var l *reports.JudgeLabels
	if labels != "" {
		var err error
		if l, err = reports.ParseJudgeLabels("labels.jsonl", strings.NewReader(labels)); err != nil {
			t.Fatal(err)
		}
	}
	s.SetJudges(l, reports.DefaultJudgeMinKappa)
	byCase := map[reports.CaseKey][]reports.ScoreRow{}
	for _, sc := range r.Scores {
		byCase[sc.Key()] = append(byCase[sc.Key()], sc)
	}
	for _, row := range r.Results {
		s.AddCase(row, byCase[row.Key()])
	}
	d := s.Digest(0)
	return &d
}

// agreeingLabels labels every case of r for scorer as its judge scored
// it: kappa 1 when the judge both passed and failed some.
func agreeingLabels(r *reports.RunData, scorer string) string {
	var b strings.Builder
	for _, s := range r.Scores {
		if s.Scorer == scorer {
			fmt.Fprintf(&b, `{"case_id": %q, "scorer": %q, "label": %q}`+"\n", s.CaseID, scorer, s.Result)
		}
	}
	return b.String()
}

// TestFailUnderLeavesOutUncalibratedJudges: --fail-under counts a judge
// scorer only when calibrated; the gate line names what it left out.
func TestFailUnderLeavesOutUncalibratedJudges(t *testing.T) {
	// 6 cases both pass; 4 exit_ok passes and the judge fails.
	judgeFails := judgedRun(append(repeat(6, judgedCase{yes, yes, "helpful"}), repeat(4, judgedCase{yes, no, "helpful"})...))
	// 8 cases only a rubric judge scored, all passed; 2 exit_ok failures.
	judgeOnly := judgedRun(append(repeat(8, judgedCase{nil, yes, "llm_judge"}), repeat(2, judgedCase{no, nil, ""})...))
	// A calibrated judge: labels agree with it on every case.
	calibrated := agreeingLabels(judgeFails, "helpful")
	tests := []struct {
		name   string
		run    *reports.RunData
		labels string
		passed bool
		detail string
	}{
		{"uncalibrated judge's fails left out", judgeFails, "", true,
			"pass rate 100.0% (10 of 10 scored) is at least 80.0%; left out uncalibrated judge scorer(s) helpful (no labels (--judge-labels)); 4 cases only they failed counted as passed"},
		{"calibrated judge's fails count", judgeFails, calibrated, false,
			"pass rate 60.0% (6 of 10 scored) is under 80.0%"},
		{"nothing passes on an unchecked judge", judgeOnly, "", false,
			"pass rate 0.0% (0 of 2 scored) is under 80.0%; left out uncalibrated judge scorer(s) llm_judge (no labels (--judge-labels)); 8 cases scored by them alone not counted"},
		{"labels that do not calibrate", judgeFails, `{"case_id": "c00", "scorer": "helpful", "label": "pass"}`, true,
			"pass rate 100.0% (10 of 10 scored) is at least 80.0%; left out uncalibrated judge scorer(s) helpful (kappa undefined: judge and people gave all 1 labelled case the same verdict); 4 cases only they failed counted as passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := digestOf(t, tt.run, tt.labels)
			v := Evaluate(d, Options{FailUnder: 0.8}, nil)
			gate := v.Gates[len(v.Gates)-1]
			if gate.Gate != "fail_under" || gate.Passed != tt.passed || v.GateFailed == tt.passed {
				t.Errorf("gate %+v, failed %v; want passed %v", gate, v.GateFailed, tt.passed)
			}
			if gate.Detail != tt.detail {
				t.Errorf("detail\n%q, want\n%q", gate.Detail, tt.detail)
			}
		})
	}
}

// TestBaselineLeavesOutUncalibratedJudges: the baseline gate compares the
// runs without uncalibrated judge scorers: a judge's regression alone does
// not fail it, and a regression the judge's fails hid in the cases'
// statuses does.
func TestBaselineLeavesOutUncalibratedJudges(t *testing.T) {
	opt := reports.DiffOptions{Alpha: 0.05}
	allPass := judgedRun(repeat(20, judgedCase{yes, yes, "helpful"}))
	judgeRegressed := judgedRun(append(repeat(10, judgedCase{yes, yes, "helpful"}), repeat(10, judgedCase{yes, no, "helpful"})...))
	// Base: exit_ok passes everywhere, the judge fails half: 10 failed.
	// Head: exit_ok fails those 10 and the judge passes them: 10 failed,
	// the same statuses, but every one a regression of exit_ok.
	hiddenBase := judgedRun(append(repeat(10, judgedCase{yes, yes, "helpful"}), repeat(10, judgedCase{yes, no, "helpful"})...))
	hiddenHead := judgedRun(append(repeat(10, judgedCase{yes, yes, "helpful"}), repeat(10, judgedCase{no, yes, "helpful"})...))
	tests := []struct {
		name       string
		base, head *reports.RunData
		labels     string
		passed     bool
	}{
		{"judge regressed, uncalibrated: left out", allPass, judgeRegressed, "", true},
		{"judge regressed, calibrated: counted", allPass, judgeRegressed, agreeingLabels(judgeRegressed, "helpful"), false},
		{"regression the judge hid", hiddenBase, hiddenHead, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := digestOf(t, tt.head, tt.labels)
			diff := reports.Diff(tt.base, tt.head, opt)
			if b, h, ok := WithoutUncalibratedJudges(tt.base, tt.head, KeepJudge(d)); ok {
				diff = reports.Diff(b, h, opt)
			}
			v := Evaluate(d, Options{FailUnder: -1, Alpha: 0.05, MaxErrorRate: 1}, diff)
			gate := v.Gates[len(v.Gates)-1]
			if gate.Gate != "baseline" || gate.Passed != tt.passed {
				t.Errorf("gate %+v; want passed %v", gate, tt.passed)
			}
			left := strings.Contains(gate.Detail, "left out uncalibrated judge scorer(s) helpful (no labels (--judge-labels))")
			if left != (tt.labels == "") {
				t.Errorf("detail %q: names the judge left out %v, want %v", gate.Detail, left, tt.labels == "")
			}
		})
	}
	// The rows given are not changed.
	if judgeRegressed.Results[19].Status != reports.StatusFailed || len(judgeRegressed.Scores) != 40 {
		t.Error("WithoutUncalibratedJudges changed its input")
	}
}

// TestJudgeMinKappaValidate: --judge-min-kappa is a kappa, -1 to 1.
func TestJudgeMinKappaValidate(t *testing.T) {
	for k, ok := range map[float64]bool{-1: true, 0: true, 0.6: true, 1: true, 1.01: false, -1.5: false} {
		err := (&Options{Alpha: 0.05, FailUnder: -1, JudgeMinKappa: k}).Validate()
		if (err == nil) != ok {
			t.Errorf("--judge-min-kappa %g: %v, want ok %v", k, err, ok)
		}
	}
}
