package reports

import (
	"strings"
	"testing"
)

// TestCancelledCasesDidNotRun: a case the interrupt cancelled did not run:
// the pass rate's "of N run" and the error rate leave it out.
func TestCancelledCasesDidNotRun(t *testing.T) {
	var s Summary
	for _, r := range []ResultRow{
		{CaseID: "a", Epoch: 1, Status: StatusPassed},
		{CaseID: "b", Epoch: 1, Status: StatusPassed},
		{CaseID: "c", Epoch: 1, Status: StatusError},
		{CaseID: "d", Epoch: 1, Status: StatusCancelled},
		{CaseID: "e", Epoch: 1, Status: StatusCancelled},
	} {
		s.Add(r)
	}
	if got := s.Ran(); got != 3 {
		t.Errorf("Ran() = %d, want 3 (the cancelled cases did not run)", got)
	}
	if got := s.PassRateAll(); got.Passed != 2 || got.Total != 3 {
		t.Errorf("PassRateAll() = %d/%d, want 2/3", got.Passed, got.Total)
	}
	if got := s.ErrorRate(); got != 1.0/3 {
		t.Errorf("ErrorRate() = %v, want 1/3", got)
	}
	d := s.Digest(0)
	var b strings.Builder
	if err := d.WriteText(&b, nil); err != nil {
		t.Fatal(err)
	}
	if want := "66.7% of 3 run"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}

// TestKilledCompleteness: a run summarised from its journal says it was
// killed (or is still running) and how many cases finished, of how many
// when that is known.
func TestKilledCompleteness(t *testing.T) {
	for _, tc := range []struct {
		stopped      string
		ran, planned int
		want         string
	}{
		{StoppedKilled, 40, 120, "Killed before it wrote its summary: 40 of 120 planned cases finished"},
		{StoppedKilled, 1, 0, "Killed before it wrote its summary: 1 case finished"},
		{StoppedKilled, 0, 0, "Killed before it wrote its summary: 0 cases finished"},
		{StoppedRunning, 3, 4, "Still running: 3 of 4 planned cases finished so far"},
		{StoppedRunning, 3, 0, "Still running: 3 cases finished so far"},
	} {
		d := Digest{Ran: tc.ran, Planned: tc.planned, Stopped: tc.stopped, Statuses: map[string]int{}}
		var b strings.Builder
		if err := d.WriteText(&b, nil); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want+"\n") {
			t.Errorf("ran %d of %d: summary lacks %q:\n%s", tc.ran, tc.planned, tc.want, b.String())
		}
	}
}
