package trend

import "github.com/murmur-nexus/murmur-eval/reports"

// runCost is a run's cost in the runs table: its cost_usd total, marked
// "+" when some model had no price (the total leaves it out), "-" for a
// run without a cost (--prices off, a run from before prices).
func runCost(r *Run) string {
	c := r.Digest.CostUSD
	if c == nil {
		return "-"
	}
	s := reports.Dollars(c.Total)
	if len(c.UnpricedModels) > 0 {
		s += "+"
	}
	return s
}
