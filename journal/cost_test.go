package journal

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// TestCostSurvivesTheJournal: the cost columns of a case's rows are what
// --resume and merge read back from its journal entry, nulls included.
func TestCostSurvivesTheJournal(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	judge := "judge-1"
	rec := Record{Attempts: []Attempt{{
		Result: reports.ResultRow{CaseID: "a", Epoch: 1, Attempt: 1, CostUSD: f(2.13), CostEstimated: true},
		Scores: []reports.ScoreRow{{CaseID: "a", Epoch: 1, Scorer: "j", JudgeModel: &judge, JudgeCostUSD: f(0.0042)}, {CaseID: "a", Epoch: 1, Scorer: "s"}},
		Events: []reports.EventRow{{CaseID: "a", Epoch: 1, EventType: "inference", CostUSD: f(2.13)}, {CaseID: "a", Epoch: 1, EventType: "tool_call"}},
	}}}
	e, err := rec.Entry()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord(e)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rec, got); diff != "" {
		t.Errorf("record read back (-written +read):\n%s", diff)
	}
}
