package reports

import (
	"fmt"
	"strings"
)

// CostDiff is what the two runs of a diff cost (summary.json's cost_usd,
// summed again from the rows): each run's total and mean per priced case,
// and head's change from base. Absent when neither run has a cost.
type CostDiff struct {
	Base CostSide `json:"base"`
	Head CostSide `json:"head"`
	// Change is Head.Total - Base.Total; MeanCaseChange the change of the
	// mean cost of a priced case (what a case costs, whatever ran).
	Change         float64 `json:"change"`
	MeanCaseChange float64 `json:"mean_case_change"`
}

// CostSide is one run's cost in a diff.
type CostSide struct {
	Total       float64 `json:"total"`
	Agent       float64 `json:"agent"`
	Judge       float64 `json:"judge"`
	PricedCases int     `json:"priced_cases"`
	MeanCase    float64 `json:"mean_case"`
}

// costOf sums a run's cost columns the way the summary does.
func costOf(r *RunData) (CostSide, bool) {
	d := r.Cost()
	if d == nil {
		return CostSide{}, false
	}
	return CostSide{Total: d.Total, Agent: d.Agent, Judge: d.Judge, PricedCases: d.PricedCases, MeanCase: d.MeanCase}, true
}

// costDiff is nil when neither run has a cost.
func costDiff(base, head *RunData) *CostDiff {
	b, bok := costOf(base)
	h, hok := costOf(head)
	if !bok && !hok {
		return nil
	}
	return &CostDiff{Base: b, Head: h, Change: h.Total - b.Total, MeanCaseChange: h.MeanCase - b.MeanCase}
}

// costText reads "cost: $1.20 -> $1.50 (+$0.30, +25.0%); a case $0.0120
// -> $0.0150 (+$0.0030)"; "" without a cost.
func (c *CostDiff) costText() string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cost: %s -> %s (%s%s); a case %s -> %s (%s)", Dollars(c.Base.Total), Dollars(c.Head.Total),
		signedDollars(c.Change), percentChange(c.Base.Total, c.Head.Total), Dollars(c.Base.MeanCase), Dollars(c.Head.MeanCase), signedDollars(c.MeanCaseChange))
	return b.String()
}

func signedDollars(usd float64) string {
	if usd < 0 {
		return "-" + Dollars(-usd)
	}
	return "+" + Dollars(usd)
}

// percentChange is ", +25.0%", "" when base is 0.
func percentChange(base, head float64) string {
	if base == 0 {
		return ""
	}
	return fmt.Sprintf(", %+.1f%%", (head-base)/base*100)
}
