package trend

import (
	"strings"
	"testing"
)

// TestLatestFindingSaysWhatItCanDetect: over too few paired cases the
// latest run's finding says no drop could be significant (issue 39,
// finding 3, as the gate says it).
func TestLatestFindingSaysWhatItCanDetect(t *testing.T) {
	r := build(DefaultOptions(), "PF", "PF", "PF", "FF", "FF")
	if f := r.Findings[0]; !strings.HasSuffix(f.Text, "; with 5 paired cases no drop could be significant at α=0.05") {
		t.Errorf("latest finding %q", f.Text)
	}
	hist := make([]string, 20)
	for i := range hist {
		hist[i] = "PP"
	}
	r = build(Options{Alpha: 0.05, MaxDropPP: 5, OutageRate: 0.2, FlakyFlips: 2}, hist...)
	if want := "; with 20 paired cases only a drop of 30.0 points or more could be significant at α=0.05, not one of --max-drop 5"; !strings.HasSuffix(r.Findings[0].Text, want) {
		t.Errorf("latest finding %q, want it to end %q", r.Findings[0].Text, want)
	}
	r = build(DefaultOptions(), hist...)
	if strings.Contains(r.Findings[0].Text, "paired cases") {
		t.Errorf("latest finding %q says what it can detect, though it can fire", r.Findings[0].Text)
	}
}
