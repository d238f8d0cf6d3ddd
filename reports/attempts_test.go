package reports

import (
	"math"
	"testing"
)

// TestSummaryCountsFinalAttempts: a run read back counts a case retried
// after an error once, by its last attempt (show's digest counted every
// attempt as a case), and its cost counts what every attempt spent.
func TestSummaryCountsFinalAttempts(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	variant := "m"
	r := &RunData{Results: []ResultRow{
		{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 1, Status: StatusError, Turns: 1, CostUSD: usd(0.25)},
		{RunID: "r", CaseID: "b", Epoch: 1, Attempt: 1, Status: StatusFailed, Turns: 1, CostUSD: usd(0.5)},
		{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 2, Status: StatusPassed, Turns: 1, CostUSD: usd(1)},
		{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 1, Status: StatusPassed, Turns: 1, CostUSD: usd(2), Variant: &variant},
	}, Scores: []ScoreRow{
		{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 2, Scorer: "s", Result: "pass"},
		{RunID: "r", CaseID: "b", Epoch: 1, Attempt: 1, Scorer: "s", Result: "fail"},
		{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 1, Scorer: "s", Result: "pass", Variant: &variant},
	}}
	d := r.Summary().Digest(0)
	if d.Cases != 3 || d.Statuses[StatusPassed] != 2 || d.Statuses[StatusFailed] != 1 || d.Statuses[StatusError] != 0 {
		t.Errorf("cases %d, statuses %v; want 3 cases: 2 passed, 1 failed, no error", d.Cases, d.Statuses)
	}
	if got := d.CostUSD; got == nil || math.Abs(got.Total-3.75) > 1e-9 || got.PricedCases != 3 || math.Abs(got.MeanCase-1.25) > 1e-9 {
		t.Errorf("cost %+v, want total $3.75 (the retried attempt's $0.25 too) over 3 priced cases", got)
	}
	if got := FinalAttempts(r.Results); len(got) != 3 || got[0].CaseID != "b" || got[1].Attempt != 2 || got[2].Variant == nil {
		t.Errorf("final attempts %+v, want b, a's attempt 2, a@m, in the rows' order", got)
	}
	// An attempt before a@m's (numbered below it): its spending counts in
	// the variant's cost, the case still once.
	r.Results = append(r.Results, ResultRow{RunID: "r", CaseID: "a", Epoch: 1, Attempt: 0, Status: StatusError, Turns: 1, CostUSD: usd(0.125), Variant: &variant})
	vd := r.Summary().Digest(0)
	if len(vd.Variants) != 1 || vd.Variants[0].Name != "m" || vd.Variants[0].CostUSD == nil || math.Abs(*vd.Variants[0].CostUSD-2.125) > 1e-9 || vd.Variants[0].Cases != 1 {
		t.Errorf("variants %+v, want m: 1 case, $2.125 (its case's $2 and an earlier attempt's $0.125)", vd.Variants)
	}
	r.Results = r.Results[:len(r.Results)-1]
	if side, ok := costOf(r); !ok || math.Abs(side.Total-3.75) > 1e-9 {
		t.Errorf("diff's cost of the run %+v, want $3.75", side)
	}
}
