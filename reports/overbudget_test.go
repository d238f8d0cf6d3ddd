package reports

import (
	"strings"
	"testing"
)

// TestOverBudgetUnscored: a case over its budget is neither passed nor
// failed: out of the pass rate over scored cases, in the one over every
// case run, and counted with errors and timeouts, which the summary then
// names.
func TestOverBudgetUnscored(t *testing.T) {
	var s Summary
	for i, status := range []string{StatusPassed, StatusFailed, StatusOverBudget, StatusTimeout} {
		s.AddCase(ResultRow{CaseID: string(rune('a' + i)), Epoch: 1, Status: status}, nil)
	}
	d := s.Digest(0)
	if d.PassRate.Total != 2 || d.PassRateAll.Total != 4 || d.Unscored != 2 || d.ErrorRate != 0.5 {
		t.Errorf("pass rate over %d, over all %d, unscored %d, error rate %v; want 2, 4, 2, 0.5", d.PassRate.Total, d.PassRateAll.Total, d.Unscored, d.ErrorRate)
	}
	var text strings.Builder
	if err := d.WriteText(&text, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 over_budget", "2 errors, timeouts or over budget (50.0%)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("summary text has no %q:\n%s", want, text.String())
		}
	}
}
