package gates

import (
	"fmt"
	"testing"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// TestVariantGates: the gates apply to every variant; the worst decides,
// even when the run as a whole passes them.
func TestVariantGates(t *testing.T) {
	digest := func(good, bad [3]int) *reports.Digest { // passed, failed, error per variant
		var s reports.Summary
		for name, counts := range map[string][3]int{"good": good, "bad": bad} {
			for i, status := range []string{reports.StatusPassed, reports.StatusFailed, reports.StatusError} {
				for n := range counts[i] {
					v := name
					s.Add(reports.ResultRow{CaseID: fmt.Sprint(status, n), Epoch: 1, Status: status, Variant: &v})
				}
			}
		}
		d := s.Digest(0)
		return &d
	}
	tests := []struct {
		name             string
		good, bad        [3]int
		failUnder, error float64
		wantFailed       bool
		wantExceeded     bool
	}{
		{"both pass", [3]int{9, 1, 0}, [3]int{8, 2, 0}, 0.8, 0, false, false},
		{"the run passes, a variant does not", [3]int{10, 0, 0}, [3]int{7, 3, 0}, 0.8, 0, true, false},
		{"one variant's errors", [3]int{10, 0, 0}, [3]int{8, 0, 2}, -1, 0.1, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Evaluate(digest(tt.good, tt.bad), Options{FailUnder: tt.failUnder, MaxErrorRate: tt.error, MaxDivergence: -1}, nil)
			if v.GateFailed != tt.wantFailed || v.BudgetExceeded != tt.wantExceeded {
				t.Errorf("Evaluate: gate failed %v, budget exceeded %v; want %v, %v\n%+v", v.GateFailed, v.BudgetExceeded, tt.wantFailed, tt.wantExceeded, v.Gates)
			}
		})
	}
}
