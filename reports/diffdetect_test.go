package reports

import (
	"strings"
	"testing"
)

// TestDiffDetectionLines: the comparison says what it can detect, in its
// JSON (Detection), its text and its warning; the warning is there only
// when the gate cannot fire or cannot enforce --max-drop.
func TestDiffDetectionLines(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		opt     DiffOptions
		text    string
		warning string // "" for none
		canFire bool
		enforce bool
	}{
		{"5 cases cannot fire", 5, DiffOptions{Alpha: 0.05, MaxDropPP: 5},
			"it cannot fire with 5 paired cases",
			"the baseline gate cannot fire: with 5 paired cases, even all 5 going pass→fail gives McNemar p = 0.0625, not below alpha 0.05 (that takes at least 6 pass→fail flips); --max-drop 5 is not enforceable: add cases or run epochs (--epochs)",
			false, false},
		{"5 cases, any drop", 5, DiffOptions{Alpha: 0.05},
			"it cannot fire with 5 paired cases",
			"the baseline gate cannot fire: with 5 paired cases, even all 5 going pass→fail gives McNemar p = 0.0625, not below alpha 0.05 (that takes at least 6 pass→fail flips); no drop can fail it: add cases or run epochs (--epochs)",
			false, false},
		{"10 cases cannot enforce 5 points", 10, DiffOptions{Alpha: 0.05, MaxDropPP: 5},
			"it can detect a drop of 60.0 points or more (6 of 10 paired cases pass→fail)",
			"the baseline gate cannot detect a drop smaller than 60.0 points with 10 paired cases at alpha 0.05; --max-drop 5 is not enforceable: add cases or run epochs (--epochs)",
			true, false},
		{"100 cases enforce 5 points", 100, DiffOptions{Alpha: 0.05, MaxDropPP: 5},
			"it can detect a drop of 6.0 points or more (6 of 100 paired cases pass→fail)", "", true, true},
		{"20 cases, any significant drop", 20, DiffOptions{Alpha: 0.05},
			"it can detect a drop of 30.0 points or more (6 of 20 paired cases pass→fail)", "", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, head := engineeredRuns(tt.n, 0, 0)
			r := Diff(base, head, tt.opt)
			if got := r.DetectionText(); got != tt.text {
				t.Errorf("DetectionText() = %q, want %q", got, tt.text)
			}
			if got := r.DetectionWarning(); got != tt.warning {
				t.Errorf("DetectionWarning() =\n%q, want\n%q", got, tt.warning)
			}
			if r.Detection.CanFire != tt.canFire || r.Detection.Enforceable != tt.enforce || r.Detection.Paired != tt.n {
				t.Errorf("Detection = %+v", r.Detection)
			}
			for _, s := range r.Scorers {
				if s.Detection.Paired != tt.n {
					t.Errorf("%s: Detection %+v, want %d paired", s.Scorer, s.Detection, tt.n)
				}
			}
			var b strings.Builder
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tt.text) || (tt.warning != "") != strings.Contains(b.String(), "WARNING: "+tt.warning) {
				t.Errorf("text lacks the detection or has the wrong warning:\n%s", b.String())
			}
		})
	}
	// No paired case at all: nothing the gate could compare.
	base, _ := engineeredRuns(4, 0, 0)
	r := Diff(base, &RunData{Path: "head"}, DiffOptions{Alpha: 0.05})
	if want := "the baseline gate cannot fire: no case was scored in both runs; no drop can fail it: add cases or run epochs (--epochs)"; r.DetectionWarning() != want {
		t.Errorf("no paired case: %q, want %q", r.DetectionWarning(), want)
	}
}

// TestDetectionOfARecordedDiff: a baseline diff read back from a
// summary.json written before detection existed says what it could
// detect from its paired counts, not "0 paired cases".
func TestDetectionOfARecordedDiff(t *testing.T) {
	base, head := engineeredRuns(20, 0, 0)
	r := Diff(base, head, DiffOptions{Alpha: 0.05})
	r.Detection = Detection{}
	for i := range r.Scorers {
		r.Scorers[i].Detection = Detection{}
	}
	if got, want := r.DetectionText(), "it can detect a drop of 30.0 points or more (6 of 20 paired cases pass→fail)"; got != want {
		t.Errorf("DetectionText() = %q, want %q", got, want)
	}
	if w := r.DetectionWarning(); w != "" {
		t.Errorf("DetectionWarning() = %q, want none", w)
	}
}
