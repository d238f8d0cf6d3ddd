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
	"github.com/murmur-nexus/murmur-eval/scoring"
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
	MaxErrorRate float64 // tolerated share of error, timeout and over_budget cases
	// MaxDivergence is the replayed requests that may differ from the
	// recorded ones; -1 tolerates any (RATIONALE.md: why 0 by default).
	MaxDivergence int
	// RequireDetectable fails the baseline gate when its paired cases
	// cannot detect a drop of MaxDropPP points, or any drop
	// (reports.Detection); without it that is a warning.
	RequireDetectable bool
	// JudgeLabelsFile is --judge-labels, people's verdicts on judge
	// scorers' cases ("" for none), read by Validate into JudgeLabels. A
	// judge scorer counts toward --fail-under and --baseline only with a
	// kappa of JudgeMinKappa or more against them (judges.go).
	JudgeLabelsFile string
	JudgeLabels     *reports.JudgeLabels
	JudgeMinKappa   float64
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
	case !(g.JudgeMinKappa >= -1 && g.JudgeMinKappa <= 1):
		return errcode.New(errcode.Usage, "--judge-min-kappa must be from -1 to 1, got %g", g.JudgeMinKappa).
			WithHint("kappa is 1 for a judge that always agrees with people, 0 for one no better than chance; %g is the default", reports.DefaultJudgeMinKappa)
	}
	if g.JudgeLabelsFile != "" && g.JudgeLabels == nil {
		l, err := reports.ReadJudgeLabels(g.JudgeLabelsFile)
		if err != nil {
			return err
		}
		g.JudgeLabels = l
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
	BudgetExceeded bool // too many error, timeout or over_budget cases
	Diverged       bool // more replay divergences than --max-divergence
	GateFailed     bool // --fail-under or --baseline failed
}

// Evaluate applies the gates to a run's digest; diff is the comparison
// with --baseline, nil without one.
func Evaluate(d *reports.Digest, g Options, diff *reports.DiffReport) Verdict {
	var v Verdict
	budget := reports.GateResult{Gate: "max_error_rate", Passed: d.ErrorRate <= g.MaxErrorRate,
		Detail: fmt.Sprintf("%d of %s (%s) in status error, timeout or over_budget; at most %s allowed",
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
		gate := failUnder(d, g)
		v.GateFailed = v.GateFailed || !gate.Passed
		v.Gates = append(v.Gates, gate)
	}
	vg, exceeded, failed := variantGates(d, g)
	v.Gates, v.BudgetExceeded, v.GateFailed = append(v.Gates, vg...), v.BudgetExceeded || exceeded, v.GateFailed || failed
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
		if note := LeftOutNote(d); note != "" {
			gate.Detail += "; " + note
		}
		v.GateFailed = v.GateFailed || !gate.Passed
		v.Gates = append(v.Gates, gate)
	}
	return v
}

// failUnder is the --fail-under gate: over the gated verdicts when
// uncalibrated judge scorers are left out, else over the cases' statuses.
func failUnder(d *reports.Digest, g Options) reports.GateResult {
	gate := reports.GateResult{Gate: "fail_under"}
	r := d.PassRate
	if d.Gated != nil {
		r = d.Gated.PassRate
	}
	switch {
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
	if note := LeftOutNote(d); note != "" {
		gate.Detail += "; " + note
	}
	if d.Gated != nil {
		if d.Gated.OnlyJudged > 0 {
			gate.Detail += fmt.Sprintf("; %s scored by them alone not counted", plural(d.Gated.OnlyJudged, "case"))
		}
		if d.Gated.Flipped > 0 {
			gate.Detail += fmt.Sprintf("; %s only they failed counted as passed", plural(d.Gated.Flipped, "case"))
		}
	}
	return gate
}

// LeftOutNote names the judge scorers the gates leave out and why: "left
// out uncalibrated judge scorer(s) helpful (kappa 0.41 < 0.6), llm_judge
// (no labels (--judge-labels))"; "" when none is.
func LeftOutNote(d *reports.Digest) string {
	if d.Gated == nil || len(d.Gated.LeftOut) == 0 {
		return ""
	}
	return JudgesLeftOut(d.Judges)
}

// JudgesLeftOut is LeftOutNote for a judges list; "" when every judge in
// it is calibrated.
func JudgesLeftOut(judges []reports.JudgeDigest) string {
	var parts []string
	for _, j := range judges {
		if !j.Calibrated {
			parts = append(parts, fmt.Sprintf("%s (%s)", j.Scorer, j.Uncalibrated))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "left out uncalibrated judge scorer(s) " + strings.Join(parts, ", ")
}

// KeepJudge tells, for a run's digest, whether the gates count a judge
// scorer: only when the digest names it calibrated. A judge scorer the
// digest does not know (a baseline's) is left out.
func KeepJudge(d *reports.Digest) func(scorer string) bool {
	calibrated := map[string]bool{}
	for _, j := range d.Judges {
		calibrated[j.Scorer] = j.Calibrated
	}
	return func(scorer string) bool { return calibrated[scorer] }
}

// WithoutUncalibratedJudges are base and head as the baseline gate
// compares them: without the judge scorers keep rejects (KeepJudge), in
// either run (reports.RunData.WithoutJudges); ok is false, and the runs
// are returned as they are, when neither has a score of such a scorer.
func WithoutUncalibratedJudges(base, head *reports.RunData, keep func(string) bool) (b, h *reports.RunData, ok bool) {
	has := func(r *reports.RunData) bool {
		for _, s := range r.Scores {
			if s.ScorerType == scoring.TypeLLMJudge && !keep(s.Scorer) {
				return true
			}
		}
		return false
	}
	if !has(base) && !has(head) {
		return base, head, false
	}
	return base.WithoutJudges(keep), head.WithoutJudges(keep), true
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
