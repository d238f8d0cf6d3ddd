package reports

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/scoring"
)

// judgedRun is a run with two judge scorers (helpful, from the manifest,
// and llm_judge, a case's rubric) beside exit_ok:
//
//	c1 passed  exit_ok pass, helpful pass
//	c2 failed  exit_ok pass, helpful fail      passes without helpful
//	c3 failed  exit_ok fail, helpful fail      fails either way
//	c4 passed  llm_judge pass                  scored by a judge alone
//	c5 failed  llm_judge fail                  scored by a judge alone
//	c6 error   no scores
//	c7 failed  no scores                       failed for another reason
func judgedRun() []struct {
	r      ResultRow
	scores []ScoreRow
} {
	model := "judge-1"
	score := func(id, scorer, typ string, pass bool) ScoreRow {
		s := ScoreRow{CaseID: id, Epoch: 1, Scorer: scorer, ScorerType: typ, Result: ResultFail}
		if pass {
			s.Result = ResultPass
		}
		if typ == scoring.TypeLLMJudge {
			s.JudgeModel = &model
		}
		return s
	}
	exit := func(id string, pass bool) ScoreRow { return score(id, "exit_ok", "exit_ok", pass) }
	helpful := func(id string, pass bool) ScoreRow { return score(id, "helpful", scoring.TypeLLMJudge, pass) }
	rubric := func(id string, pass bool) ScoreRow { return score(id, "llm_judge", scoring.TypeLLMJudge, pass) }
	row := func(id, status string) ResultRow { return ResultRow{CaseID: id, Epoch: 1, Status: status} }
	return []struct {
		r      ResultRow
		scores []ScoreRow
	}{
		{row("c1", StatusPassed), []ScoreRow{exit("c1", true), helpful("c1", true)}},
		{row("c2", StatusFailed), []ScoreRow{exit("c2", true), helpful("c2", false)}},
		{row("c3", StatusFailed), []ScoreRow{exit("c3", false), helpful("c3", false)}},
		{row("c4", StatusPassed), []ScoreRow{rubric("c4", true)}},
		{row("c5", StatusFailed), []ScoreRow{rubric("c5", false)}},
		{row("c6", StatusError), nil},
		{row("c7", StatusFailed), nil},
	}
}

// judgedLabels label helpful on c1 to c3 (agreeing on c1 and c3: kappa
// (6-4)/(9-4) = 0.4), and four things the run does not have.
const judgedLabels = `{"case_id": "c1", "scorer": "helpful", "label": "pass"}
{"case_id": "c2", "scorer": "helpful", "label": "pass"}
{"case_id": "c3", "scorer": "helpful", "label": "fail"}
{"case_id": "zz", "scorer": "helpful", "label": "pass"}
{"case_id": "c1", "scorer": "exit_ok", "label": "pass"}
{"case_id": "c1", "scorer": "nope", "label": "pass"}
{"case_id": "c1", "scorer": "helpful", "label": "pass", "epoch": 2}
`

func judgedDigest(t *testing.T, labels string, minKappa float64, set bool) Digest {
	t.Helper()
	var s Summary
	if set {
		var l *JudgeLabels
		if labels != "" {
			var err error
			if l, err = ParseJudgeLabels("labels.jsonl", strings.NewReader(labels)); err != nil {
				t.Fatal(err)
			}
		}
		s.SetJudges(l, minKappa)
	}
	for _, c := range judgedRun() {
		s.AddCase(c.r, c.scores)
	}
	return s.Digest(0)
}

// TestJudgesDigest: each judge scorer's entry, calibrated or not and why,
// and the gated verdicts without the uncalibrated ones.
func TestJudgesDigest(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	helpfulCal := &Calibration{N: 3, Agreement: 2.0 / 3, Kappa: f(0.4), TPR: f(0.5), TNR: f(1),
		Matrix: Confusion{BothPass: 1, JudgeFail: 1, BothFail: 1}}
	rubricNoLabel := JudgeDigest{Scorer: "llm_judge", Model: "judge-1", Cases: 2, MinKappa: 0.6, Uncalibrated: "no label for a case it scored"}
	tests := []struct {
		name     string
		labels   string
		minKappa float64
		set      bool
		judges   []JudgeDigest
		gated    *GatedVerdicts
	}{
		{name: "no SetJudges (show, trend)", judges: []JudgeDigest{
			{Scorer: "helpful", Model: "judge-1", Cases: 3, MinKappa: 0.6, Uncalibrated: "no labels (--judge-labels)"},
			{Scorer: "llm_judge", Model: "judge-1", Cases: 2, MinKappa: 0.6, Uncalibrated: "no labels (--judge-labels)"},
		}, gated: &GatedVerdicts{LeftOut: []string{"helpful", "llm_judge"}, PassRate: NewRate(2, 4), OnlyJudged: 2, Flipped: 1}},
		{name: "kappa under the default", labels: judgedLabels, minKappa: 0.6, set: true, judges: []JudgeDigest{
			{Scorer: "helpful", Model: "judge-1", Cases: 3, Calibration: helpfulCal, MinKappa: 0.6, Uncalibrated: "kappa 0.40 < 0.6"},
			rubricNoLabel,
		}, gated: &GatedVerdicts{LeftOut: []string{"helpful", "llm_judge"}, PassRate: NewRate(2, 4), OnlyJudged: 2, Flipped: 1}},
		{name: "kappa at a lower threshold", labels: judgedLabels, minKappa: 0.4, set: true, judges: []JudgeDigest{
			{Scorer: "helpful", Model: "judge-1", Cases: 3, Calibration: helpfulCal, MinKappa: 0.4, Calibrated: true},
			{Scorer: "llm_judge", Model: "judge-1", Cases: 2, MinKappa: 0.4, Uncalibrated: "no label for a case it scored"},
		}, gated: &GatedVerdicts{LeftOut: []string{"llm_judge"}, PassRate: NewRate(1, 4), OnlyJudged: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := judgedDigest(t, tt.labels, tt.minKappa, tt.set)
			if diff := cmp.Diff(tt.judges, d.Judges); diff != "" {
				t.Errorf("judges (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.gated, d.Gated); diff != "" {
				t.Errorf("gated (-want +got):\n%s", diff)
			}
			// The statuses stay what the scorers said.
			if d.PassRate != NewRate(2, 6) {
				t.Errorf("pass rate %+v, want 2 of 6", d.PassRate)
			}
		})
	}
}

// TestJudgesAllCalibrated: with every judge calibrated nothing is left out.
func TestJudgesAllCalibrated(t *testing.T) {
	labels := `{"case_id": "c1", "scorer": "helpful", "label": "pass"}
{"case_id": "c2", "scorer": "helpful", "label": "fail"}
{"case_id": "c4", "scorer": "llm_judge", "label": "pass"}
{"case_id": "c5", "scorer": "llm_judge", "label": "fail"}`
	d := judgedDigest(t, labels, 0.6, true)
	for _, j := range d.Judges {
		if !j.Calibrated || j.Calibration == nil || *j.Calibration.Kappa != 1 {
			t.Errorf("%s: %+v, want calibrated with kappa 1", j.Scorer, j)
		}
	}
	if d.Gated != nil {
		t.Errorf("gated %+v, want nil", d.Gated)
	}
	if d.JudgeLabels == nil || d.JudgeLabels.UnmatchedTotal != 0 {
		t.Errorf("judge_labels %+v, want every label matched", d.JudgeLabels)
	}
}

// TestJudgeLabelsUnmatched: labels naming a case, an epoch or a scorer the
// run does not have are listed, in file order, with their line.
func TestJudgeLabelsUnmatched(t *testing.T) {
	d := judgedDigest(t, judgedLabels, 0.6, true)
	want := &JudgeLabelsDigest{File: "labels.jsonl", Labels: 7, UnmatchedTotal: 4, Unmatched: []string{
		`labels.jsonl:4: case "zz" is not in the run`,
		`labels.jsonl:5: scorer "exit_ok" is of type exit_ok, not llm_judge`,
		`labels.jsonl:6: scorer "nope" is not in the run`,
		`labels.jsonl:7: case "c1" has no epoch 2 in the run`,
	}}
	if diff := cmp.Diff(want, d.JudgeLabels); diff != "" {
		t.Errorf("judge_labels (-want +got):\n%s", diff)
	}
}

// TestJudgesMultiEpoch: a label for every epoch counts once per epoch the
// judge scored; an epoch's own label overrides it for that epoch.
func TestJudgesMultiEpoch(t *testing.T) {
	l, err := ParseJudgeLabels("l", strings.NewReader(`{"case_id": "a", "scorer": "j", "label": "pass"}
{"case_id": "a", "scorer": "j", "label": "fail", "epoch": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	s.SetJudges(l, 0.6)
	for e, pass := range []bool{true, false, false} {
		res := ResultFail
		st := StatusFailed
		if pass {
			res, st = ResultPass, StatusPassed
		}
		s.AddCase(ResultRow{CaseID: "a", Epoch: int32(e + 1), Status: st},
			[]ScoreRow{{CaseID: "a", Epoch: int32(e + 1), Scorer: "j", ScorerType: scoring.TypeLLMJudge, Result: res}})
	}
	d := s.Digest(0)
	// Epoch 1: both pass; epoch 2: people pass, judge fails; epoch 3: both fail.
	if got, want := d.Judges[0].Calibration.Matrix, (Confusion{BothPass: 1, JudgeFail: 1, BothFail: 1}); got != want {
		t.Errorf("matrix %+v, want %+v", got, want)
	}
}

// TestJudgeSamplesDisagree: the cases whose samples disagreed on the
// verdict are counted per judge scorer and named in the terminal summary
// and summary.md.
func TestJudgeSamplesDisagree(t *testing.T) {
	var s Summary
	for i, sc := range []struct {
		split  bool
		spread float64
	}{{true, 0.5}, {false, 0.1}, {true, 0.3}} {
		id := string(rune('a' + i))
		n, split, spread := int32(3), sc.split, sc.spread
		s.AddCase(ResultRow{CaseID: id, Epoch: 1, Status: StatusPassed},
			[]ScoreRow{{CaseID: id, Epoch: 1, Scorer: "j", ScorerType: scoring.TypeLLMJudge, Result: ResultPass,
				JudgeSamples: &n, JudgeSplit: &split, JudgeSpread: &spread}})
	}
	d := s.Digest(0)
	if j := d.Judges[0]; j.Samples != 3 || j.Split != 2 || j.MaxSpread != 0.5 {
		t.Errorf("judge digest %+v, want 3 samples, 2 split, spread 0.5", j)
	}
	var text, md strings.Builder
	d.writeJudgesText(&text)
	d.writeJudgesMarkdown(&md)
	for _, out := range []string{text.String(), md.String()} {
		if !strings.Contains(out, "its 3 samples disagreed on the verdict of 2 cases (largest spread 0.50)") {
			t.Errorf("the disagreement is not named:\n%s", out)
		}
	}
}
