package reports

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/scoring"
)

// TestWithoutJudges: each case's status is murmur's rule over the scores
// left; a case only left-out judges scored is neither passed nor failed;
// cases without such a score, and unscored ones, keep their status.
func TestWithoutJudges(t *testing.T) {
	score := func(id string, attempt int32, scorer, typ, result string) ScoreRow {
		return ScoreRow{CaseID: id, Epoch: 1, Attempt: attempt, Scorer: scorer, ScorerType: typ, Result: result}
	}
	const judge = scoring.TypeLLMJudge
	r := &RunData{Path: "run",
		Results: []ResultRow{
			{CaseID: "only-judge-failed", Epoch: 1, Attempt: 1, Status: StatusFailed},
			{CaseID: "both-failed", Epoch: 1, Attempt: 1, Status: StatusFailed},
			{CaseID: "kept-judge-failed", Epoch: 1, Attempt: 1, Status: StatusFailed},
			{CaseID: "judge-alone", Epoch: 1, Attempt: 1, Status: StatusPassed},
			{CaseID: "no-judge", Epoch: 1, Attempt: 1, Status: StatusFailed},
			{CaseID: "retried", Epoch: 1, Attempt: 1, Status: StatusError},
			{CaseID: "retried", Epoch: 1, Attempt: 2, Status: StatusFailed},
		},
		Scores: []ScoreRow{
			score("only-judge-failed", 1, "exit_ok", "exit_ok", ResultPass), score("only-judge-failed", 1, "helpful", judge, ResultFail),
			score("both-failed", 1, "exit_ok", "exit_ok", ResultFail), score("both-failed", 1, "helpful", judge, ResultFail),
			score("kept-judge-failed", 1, "helpful", judge, ResultPass), score("kept-judge-failed", 1, "checked", judge, ResultFail),
			score("judge-alone", 1, "helpful", judge, ResultPass),
			score("no-judge", 1, "exit_ok", "exit_ok", ResultFail),
			score("retried", 2, "exit_ok", "exit_ok", ResultPass), score("retried", 2, "helpful", judge, ResultFail),
		}}
	got := r.WithoutJudges(func(s string) bool { return s == "checked" })
	status := map[string]string{}
	for _, row := range got.Results {
		status[row.CaseID] = row.Status
	}
	want := map[string]string{"only-judge-failed": StatusPassed, "both-failed": StatusFailed, "kept-judge-failed": StatusFailed,
		"judge-alone": statusJudgedOnly, "no-judge": StatusFailed, "retried": StatusPassed}
	if diff := cmp.Diff(want, status); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	for _, s := range got.Scores {
		if s.Scorer == "helpful" {
			t.Errorf("%s kept a left-out judge's row", s.CaseID)
		}
	}
	if len(got.Scores) != 5 || r.Results[0].Status != StatusFailed || len(r.Scores) != 10 {
		t.Errorf("%d scores left (want 5), or the input changed", len(got.Scores))
	}
	// The diff pairs the judge-only case for no scorer.
	if o := got.outcomes()[OverallScorer]; len(o) != 5 {
		t.Errorf("overall verdicts %v, want 5 (the judge-alone case left out)", o)
	}
}

// TestJudgeDigestJSON: summary.json's judges entry, its field names a
// contract; no labelled case is "calibration": null.
func TestJudgeDigestJSON(t *testing.T) {
	d := judgedDigest(t, judgedLabels, 0.6, true)
	b, err := json.Marshal(d.Judges)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"scorer":"helpful","model":"judge-1","cases":3,"calibration":{"n":3,"agreement":0.6666666666666666,"kappa":0.4,"tpr":0.5,"tnr":1,` +
		`"matrix":{"both_pass":1,"judge_pass":0,"judge_fail":1,"both_fail":1}},"calibrated":false,"min_kappa":0.6,"uncalibrated":"kappa 0.40 \u003c 0.6","samples":0,"split":0,"max_spread":0},` +
		`{"scorer":"llm_judge","model":"judge-1","cases":2,"calibration":null,"calibrated":false,"min_kappa":0.6,"uncalibrated":"no label for a case it scored","samples":0,"split":0,"max_spread":0}]`
	if string(b) != want {
		t.Errorf("judges JSON\n%s\nwant\n%s", b, want)
	}
	if b, _ := json.Marshal(d.Gated); !strings.Contains(string(b), `"left_out":["helpful","llm_judge"]`) {
		t.Errorf("gated JSON %s", b)
	}
}
