// Package gates decides whether a finished run, or a merged one, passes:
// its error budget (--max-error-rate), replay divergences
// (--max-divergence), its pass rate (--fail-under) and its comparison
// with a baseline run (--baseline, McNemar's test as diff applies it).
package gates

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// Gate defaults: a regression must be significant at 5%; any drop counts;
// no harness error is tolerated (as before gates existed, when any error
// exited 3).
const (
	DefaultAlpha        = 0.05
	DefaultMaxDropPP    = 0
	DefaultMaxErrorRate = 0
)

// Options are the flags that decide whether a run, or a diff, passes.
type Options struct {
	Baseline     string  // run folder or Parquet file to compare with; "" for none
	Alpha        float64 // McNemar significance level
	MaxDropPP    float64 // tolerated drop in percentage points
	FailUnder    float64 // minimum pass rate over scored cases; < 0 when unset
	MaxErrorRate float64 // tolerated share of error and timeout cases
	// MaxDivergence is the replayed requests that may differ from the
	// recorded ones; -1 tolerates any (RATIONALE.md: why 0 by default).
	MaxDivergence int
	// RequireDetectable fails the baseline gate when its paired cases
	// cannot detect a drop of MaxDropPP points, or any drop
	// (reports.Detection); without it that is a warning.
	RequireDetectable bool
}

// Validate checks the options, each error a usage error.
func (g *Options) Validate() error {
	switch {
	case !(g.Alpha > 0 && g.Alpha <= 1):
		return errcode.New(errcode.Usage, "--alpha must be in (0, 1], got %g", g.Alpha)
	case !(g.MaxDropPP >= 0 && g.MaxDropPP <= 100):
		return errcode.New(errcode.Usage, "--max-drop must be 0 to 100 percentage points, got %g", g.MaxDropPP)
	case g.FailUnder > 1:
		return errcode.New(errcode.Usage, "--fail-under must be a rate from 0 to 1 (or 0%% to 100%%), got %g", g.FailUnder)
	case g.MaxDivergence < -1:
		return errcode.New(errcode.Usage, "--max-divergence must be -1 (any) or more, got %d", g.MaxDivergence)
	case !(g.MaxErrorRate >= 0 && g.MaxErrorRate <= 1):
		return errcode.New(errcode.Usage, "--max-error-rate must be a rate from 0 to 1 (or 0%% to 100%%), got %g", g.MaxErrorRate)
	}
	return nil
}

// DiffOptions are the options of the comparison with the baseline.
func (g *Options) DiffOptions() reports.DiffOptions {
	return reports.DiffOptions{Alpha: g.Alpha, MaxDropPP: g.MaxDropPP}
}

// Verdict is what the gates decided about a finished run.
type Verdict struct {
	Gates          []reports.GateResult
	BudgetExceeded bool // too many error or timeout cases
	Diverged       bool // more replay divergences than --max-divergence
	GateFailed     bool // --fail-under or --baseline failed
}

// Evaluate applies the gates to a run's digest; diff is the comparison
// with --baseline, nil without one.
func Evaluate(d *reports.Digest, g Options, diff *reports.DiffReport) Verdict {
	var v Verdict
	budget := reports.GateResult{Gate: "max_error_rate", Passed: d.ErrorRate <= g.MaxErrorRate,
		Detail: fmt.Sprintf("%d of %s (%s) in status error or timeout; at most %s allowed",
			d.Unscored, plural(d.PassRateAll.Total, "case"), pct(d.ErrorRate), pct(g.MaxErrorRate))}
	v.BudgetExceeded = !budget.Passed
	v.Gates = append(v.Gates, budget)
	if d.ReplayDivergences > 0 {
		gate := reports.GateResult{Gate: "max_divergence", Passed: g.MaxDivergence < 0 || d.ReplayDivergences <= g.MaxDivergence}
		allowed := fmt.Sprintf("at most %d allowed", g.MaxDivergence)
		if g.MaxDivergence < 0 {
			allowed = "any allowed (--max-divergence -1)"
		}
		gate.Detail = fmt.Sprintf("%s in %s differed from the recordings; %s", plural(d.ReplayDivergences, "replayed request"), plural(d.DivergedCases, "case"), allowed)
		v.Diverged = !gate.Passed
		v.Gates = append(v.Gates, gate)
	}
	if g.FailUnder >= 0 {
		gate := reports.GateResult{Gate: "fail_under"}
		switch r := d.PassRate; {
		case r.Total == 0:
			gate.Detail = "no case was scored"
		default:
			gate.Passed = r.Rate >= g.FailUnder
			rel := "at least"
			if !gate.Passed {
				rel = "under"
			}
			gate.Detail = fmt.Sprintf("pass rate %s (%d of %d scored) is %s %s", pct(r.Rate), r.Passed, r.Total, rel, pct(g.FailUnder))
		}
		v.GateFailed = v.GateFailed || !gate.Passed
		v.Gates = append(v.Gates, gate)
	}
	if diff != nil {
		det := diff.Detection
		gate := reports.GateResult{Gate: "baseline", Passed: len(diff.Regressions) == 0, Detection: &det, Warning: diff.DetectionWarning()}
		if gate.Passed {
			gate.Detail = fmt.Sprintf("no scorer regressed against %s (drop > %g points with p < %g); %s", diff.Base.Path, g.MaxDropPP, g.Alpha, diff.DetectionText())
			if g.RequireDetectable && gate.Warning != "" {
				gate.Passed = false
				gate.Detail += " (--require-detectable)"
			}
		} else {
			var parts []string
			for _, s := range diff.Scorers {
				if s.Regression {
					parts = append(parts, fmt.Sprintf("%s %+.1f points (%d pass→fail, p=%.2g)", s.Scorer, s.PairedChangePP, len(s.PassToFail), s.PValue))
				}
			}
			gate.Detail = "regressed against " + diff.Base.Path + ": " + strings.Join(parts, "; ")
		}
		v.GateFailed = v.GateFailed || !gate.Passed
		v.Gates = append(v.Gates, gate)
	}
	return v
}

func pct(r float64) string { return strconv.FormatFloat(100*r, 'f', 1, 64) + "%" }

// ParseFloat reads a finite number.
func ParseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// ParseRate reads a rate as a fraction ("0.8") or a percentage ("80%").
func ParseRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		v, err := ParseFloat(p)
		if err != nil {
			return 0, fmt.Errorf("%q is not a rate like 0.8 or 80%%", s)
		}
		return v / 100, nil
	}
	v, err := ParseFloat(t)
	if err != nil || v < 0 || v > 1 {
		return 0, fmt.Errorf("%q is not a rate like 0.8 or 80%%", s)
	}
	return v, nil
}

// ParsePoints reads percentage points: "5", "5pp", "2.5".
func ParsePoints(s string) (float64, error) {
	t, _ := strings.CutSuffix(strings.TrimSpace(s), "pp")
	v, err := ParseFloat(t)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number of percentage points like 5 or 2.5pp", s)
	}
	return v, nil
}

// DetectionError is the E-EVL-006 of a comparison whose paired cases
// cannot detect a drop of --max-drop points, or any drop; nil when they
// can. Its message is the comparison's DetectionWarning.
func DetectionError(diff *reports.DiffReport, g Options) error {
	w := diff.DetectionWarning()
	if w == "" {
		return nil
	}
	err := errcode.New(errcode.GateUndetectable, "%s", w)
	if g.RequireDetectable {
		return err.WithHint("add paired cases or epochs, or run without --require-detectable (MURMUR_EVAL_REQUIRE_DETECTABLE) to make this a warning")
	}
	return err
}

// DivergedError is the one error line of a run that exits 5.
func DivergedError(d *reports.Digest, g Options) error {
	return errcode.New(errcode.ReplayDiverged, "%s in %s differed from the recordings; --max-divergence allows %d",
		plural(d.ReplayDivergences, "replayed request"), plural(d.DivergedCases, "case"), g.MaxDivergence).
		WithHint("the recordings answer a conversation the capsule no longer has: check murmur.yaml (a tool dropped?) and record again with --record, or pass --max-divergence -1 to allow it")
}

// plural is n and noun, the noun plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
