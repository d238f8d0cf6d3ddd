package reports

import (
	"fmt"
	"math"
	"strconv"
)

// Detection is what a regression test over a scorer's paired cases can
// find at the diff's alpha: the smallest drop it could call significant,
// in the most favourable case (every flip pass→fail, none back). It is
// computed from the paired count alone, before any verdict: a gate that
// passes because it could not have failed says so.
type Detection struct {
	Paired int `json:"paired"`
	// MinFlips is the fewest pass→fail flips McNemar's test calls
	// significant (MinFlips); 0 when it cannot fire.
	MinFlips int `json:"min_flips"`
	// MinDetectableDropPP is MinFlips as points of the paired cases
	// (100·MinFlips/Paired); null when the test cannot fire.
	MinDetectableDropPP *float64 `json:"min_detectable_drop_pp"`
	// CanFire is false when no drop, even every paired case going
	// pass→fail, reaches p < alpha.
	CanFire bool `json:"can_fire"`
	// Enforceable is true when every drop of more than --max-drop points
	// the paired cases can show is large enough for the test; with
	// --max-drop 0 (any significant drop) when the test can fire at all.
	Enforceable bool `json:"enforceable"`
}

// Detect is the Detection of a test over paired cases with opt's alpha
// and --max-drop.
func Detect(paired int, opt DiffOptions) Detection {
	d := Detection{Paired: paired, MinFlips: MinFlips(paired, opt.Alpha)}
	if d.MinFlips == 0 {
		return d
	}
	d.CanFire = true
	pp := 100 * float64(d.MinFlips) / float64(paired)
	d.MinDetectableDropPP = &pp
	// The smallest drop past --max-drop the paired cases can show is
	// over flips: floor(max·n/100)+1 of them. The test must reach it.
	over := int(math.Floor(opt.MaxDropPP*float64(paired)/100)) + 1
	d.Enforceable = opt.MaxDropPP == 0 || d.MinFlips <= over
	return d
}

// gateDetection is the overall verdict's Detection: what the baseline
// gate can find. A diff with no overall row (a scores file alone) uses the
// scorer with the most paired cases. It is computed from the paired
// counts, so a diff recorded before Detection existed (an older
// summary.json's baseline) reads right too.
func (r *DiffReport) gateDetection() Detection {
	paired := -1
	for _, s := range r.Scorers {
		if s.Scorer == OverallScorer {
			paired = s.Paired
			break
		}
		paired = max(paired, s.Paired)
	}
	return Detect(max(paired, 0), DiffOptions{Alpha: r.Alpha, MaxDropPP: r.MaxDropPP})
}

// DetectionText says what the gate can find, for its detail: "it can
// detect a drop of 30.0 points or more (6 of 20 paired cases
// pass→fail)".
func (r *DiffReport) DetectionText() string {
	d := r.gateDetection()
	if !d.CanFire {
		return fmt.Sprintf("it cannot fire with %s", plural(d.Paired, "paired case"))
	}
	return fmt.Sprintf("it can detect a drop of %.1f points or more (%d of %d paired cases pass→fail)", *d.MinDetectableDropPP, d.MinFlips, d.Paired)
}

// DetectionWarning is the line a CI reader must not miss when the gate
// cannot fire or cannot enforce --max-drop; "" when it can.
func (r *DiffReport) DetectionWarning() string {
	d := r.gateDetection()
	switch {
	case d.CanFire && d.Enforceable:
		return ""
	case d.Paired == 0:
		return "the baseline gate cannot fire: no case was scored in both runs; " + r.maxDropNote()
	case !d.CanFire:
		return fmt.Sprintf("the baseline gate cannot fire: with %s, even all %d going pass→fail gives McNemar p = %s, not below alpha %g (that takes at least %d pass→fail flips); %s",
			plural(d.Paired, "paired case"), d.Paired, strconv.FormatFloat(McNemarExact(d.Paired, 0), 'g', 3, 64), r.Alpha,
			MinFlips(math.MaxInt32, r.Alpha), r.maxDropNote())
	}
	return fmt.Sprintf("the baseline gate cannot detect a drop smaller than %.1f points with %s at alpha %g; %s",
		*d.MinDetectableDropPP, plural(d.Paired, "paired case"), r.Alpha, r.maxDropNote())
}

// maxDropNote says what the gate cannot do and what would help.
func (r *DiffReport) maxDropNote() string {
	what := "no drop can fail it"
	if r.MaxDropPP > 0 {
		what = fmt.Sprintf("--max-drop %g is not enforceable", r.MaxDropPP)
	}
	return what + ": add cases or run epochs (--epochs)"
}
