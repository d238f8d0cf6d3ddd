package reports

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// scoredRun is a run of six cases with scores: three passed, two failed
// (with reasons, one with a Markdown-hostile id), one harness error.
func scoredRun() ([]ResultRow, [][]ScoreRow) {
	start := time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC)
	row := func(i int, id, status string, ms float64) ResultRow {
		return ResultRow{RunID: "run_1", CaseID: id, Epoch: 1, Status: status, DurationMS: ms, Turns: 2, ToolCalls: 1,
			InputTokens: 100, OutputTokens: 10, StartedAt: start.Add(time.Duration(i) * time.Second),
			CapsuleName: "quickstart", CapsuleVersion: "0.1.0"}
	}
	score := func(id, scorer, typ string, pass bool, reason string) ScoreRow {
		r := ScoreRow{RunID: "run_1", CaseID: id, Epoch: 1, Scorer: scorer, ScorerType: typ, Result: ResultFail, Reason: reason}
		if pass {
			r.Result, r.Score = ResultPass, 1
		}
		return r
	}
	code, stage, msg := "E-EVL-010", "launch", "no recording for case \"c6\""
	errRow := row(5, "c6", StatusError, 3)
	errRow.ErrorCode, errRow.ErrorStage, errRow.ErrorMessage = &code, &stage, &msg
	rows := []ResultRow{
		row(0, "c1", StatusPassed, 1200), row(1, "c2", StatusPassed, 800), row(2, "c3", StatusPassed, 4500),
		row(3, "c4|*x*", StatusFailed, 900), row(4, "c5", StatusFailed, 700), errRow,
	}
	ok := func(id string) []ScoreRow {
		return []ScoreRow{score(id, "exit_ok", "exit_ok", true, "exit_status=ok"), score(id, "result_contains", "result_contains", true, `result contains "42"`)}
	}
	scores := [][]ScoreRow{ok("c1"), ok("c2"), ok("c3"),
		{score("c4|*x*", "exit_ok", "exit_ok", true, "exit_status=ok"), score("c4|*x*", "result_contains", "result_contains", false, `result lacks "42" (0 of 1 found)`)},
		{score("c5", "exit_ok", "exit_ok", false, "exit_status=max_turns_reached")},
		nil,
	}
	return rows, scores
}

func scoredSummary() *Summary {
	rows, scores := scoredRun()
	var s Summary
	for i := range rows {
		s.AddCase(rows[i], scores[i])
	}
	return &s
}

func TestDigestCounts(t *testing.T) {
	d := scoredSummary().Digest(0)
	if d.PassRate.Passed != 3 || d.PassRate.Total != 5 || d.PassRateAll.Total != 6 || d.Unscored != 1 {
		t.Errorf("pass rates %+v / %+v, unscored %d; want 3/5 scored, 3/6 run, 1 unscored", d.PassRate, d.PassRateAll, d.Unscored)
	}
	if d.WallMS != 6500 { // c3 starts at 2 s and takes 4.5 s
		t.Errorf("wall %v ms, want the span of the cases' times, 6500", d.WallMS)
	}
	want := []ScorerDigest{
		{Name: "exit_ok", Type: "exit_ok", Rate: NewRate(4, 5)},
		{Name: "result_contains", Type: "result_contains", Rate: NewRate(3, 4)},
	}
	if diff := cmp.Diff(want, d.Scorers); diff != "" {
		t.Errorf("scorers (-want +got):\n%s", diff)
	}
	if len(d.Failed) != 2 || d.Failed[0].CaseID != "c4|*x*" || d.Failed[0].Reasons[0] != `result_contains: result lacks "42" (0 of 1 found)` {
		t.Errorf("failed cases %+v", d.Failed)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"pass_rate":{"passed":3,"total":5`, `"ci95_low":`, `"statuses":{"cancelled":0,"error":1`, `"gates":[]`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("summary.json lacks %s:\n%s", key, b)
		}
	}
}

func TestFailedListIsBoundedAndOrdered(t *testing.T) {
	var s Summary
	for i := 120; i > 0; i-- {
		s.Add(ResultRow{CaseID: fmt.Sprintf("case-%03d", i), Status: StatusFailed})
	}
	d := s.Digest(time.Second)
	if len(d.Failed) != failedKept || d.FailedAll != 120 || d.Failed[0].CaseID != "case-001" || d.Failed[failedKept-1].CaseID != "case-050" {
		t.Errorf("failed list: %d kept of %d, first %q, last %q", len(d.Failed), d.FailedAll, d.Failed[0].CaseID, d.Failed[len(d.Failed)-1].CaseID)
	}
}

func TestScoredSummaryText(t *testing.T) {
	d := scoredSummary().Digest(6 * time.Second)
	d.Gates = []GateResult{{Gate: "fail_under", Passed: false, Detail: "pass rate 60.0% is under 80.0%"}}
	var b strings.Builder
	if err := d.WriteText(&b, []OutputFile{{"results", "runs/x/results.parquet"}, {"scores", "runs/x/scores.parquet"}, {"junit", ""}}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "summary-scored.golden", b.String())
}

func TestMarkdownSummary(t *testing.T) {
	d := scoredSummary().Digest(6 * time.Second)
	d.Gates = []GateResult{{Gate: "max_error_rate", Passed: true, Detail: "1 of 6 cases (16.7%) unscored, at most 20.0%"}}
	base, head := engineeredRuns(40, 4, 0)
	d.Baseline = Diff(base, head, DiffOptions{Alpha: 0.05})
	var b strings.Builder
	if err := d.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "summary.md.golden", b.String())
	if strings.Contains(b.String(), "c4|*x*") {
		t.Errorf("a case id reached the Markdown table unescaped")
	}
}
