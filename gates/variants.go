package gates

import (
	"fmt"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// variantGates are the error budget and --fail-under applied to each
// variant of a run with variants (--models, --variants), after the run's
// own: every variant must pass them, so the worst decides. (The run's
// rates are the variants' weighted means: when every variant passes, so
// does the run.) Empty without variants.
func variantGates(d *reports.Digest, g Options) (gates []reports.GateResult, budgetExceeded, gateFailed bool) {
	for _, v := range d.Variants {
		rate := 0.0
		if v.Ran > 0 {
			rate = float64(v.Unscored) / float64(v.Ran)
		}
		budget := reports.GateResult{Gate: "max_error_rate", Passed: rate <= g.MaxErrorRate,
			Detail: fmt.Sprintf("variant %s: %d of %s (%s) in status error, timeout or over_budget; at most %s allowed",
				v.Name, v.Unscored, plural(v.Ran, "case"), pct(rate), pct(g.MaxErrorRate))}
		budgetExceeded = budgetExceeded || !budget.Passed
		gates = append(gates, budget)
		if g.FailUnder < 0 {
			continue
		}
		gate := reports.GateResult{Gate: "fail_under"}
		if r := v.PassRate; r.Total == 0 {
			gate.Detail = fmt.Sprintf("variant %s: no case was scored", v.Name)
		} else {
			gate.Passed = r.Rate >= g.FailUnder
			rel := "at least"
			if !gate.Passed {
				rel = "under"
			}
			gate.Detail = fmt.Sprintf("variant %s: pass rate %s (%d of %d scored) is %s %s", v.Name, pct(r.Rate), r.Passed, r.Total, rel, pct(g.FailUnder))
		}
		gateFailed = gateFailed || !gate.Passed
		gates = append(gates, gate)
	}
	return gates, budgetExceeded, gateFailed
}
