package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// Gate defaults: a regression must be significant at 5%; any drop counts;
// no harness error is tolerated (as before gates existed, when any error
// exited 3).
const (
	defaultAlpha        = 0.05
	defaultMaxDropPP    = 0
	defaultMaxErrorRate = 0
)

// gateOptions are the flags that decide whether a run, or a diff, passes.
type gateOptions struct {
	baseline     string  // run folder or Parquet file to compare with; "" for none
	alpha        float64 // McNemar significance level
	maxDropPP    float64 // tolerated drop in percentage points
	failUnder    float64 // minimum pass rate over scored cases; < 0 when unset
	maxErrorRate float64 // tolerated share of error and timeout cases
	// maxDivergence is the replayed requests that may differ from the
	// recorded ones; -1 tolerates any (RATIONALE.md: why 0 by default).
	maxDivergence int
}

// registerDiff adds the flags that define a regression.
func (g *gateOptions) registerDiff(fs *pflag.FlagSet, env map[string]string, errs *[]error) {
	g.alpha = envFloat(env, "MURMUR_EVAL_ALPHA", defaultAlpha, parseFloat, errs)
	g.maxDropPP = envFloat(env, "MURMUR_EVAL_MAX_DROP", defaultMaxDropPP, parsePoints, errs)
	fs.Var(&floatFlag{&g.alpha, parseFloat}, "alpha", "significance level of the McNemar test for a regression (env MURMUR_EVAL_ALPHA)")
	fs.Var(&floatFlag{&g.maxDropPP, parsePoints}, "max-drop", "tolerated drop in pass rate, in percentage points, before a significant drop is a regression (env MURMUR_EVAL_MAX_DROP) (default 0)")
}

// registerRun adds the run's gates: the diff's flags, --baseline,
// --fail-under and --max-error-rate.
func (g *gateOptions) registerRun(fs *pflag.FlagSet, env map[string]string, errs *[]error) {
	g.registerDiff(fs, env, errs)
	g.failUnder = envFloat(env, "MURMUR_EVAL_FAIL_UNDER", -1, parseRate, errs)
	g.maxErrorRate = envFloat(env, "MURMUR_EVAL_MAX_ERROR_RATE", defaultMaxErrorRate, parseRate, errs)
	fs.StringVar(&g.baseline, "baseline", env["MURMUR_EVAL_BASELINE"], "compare with this earlier run (its folder or a Parquet file) and fail on a regression (env MURMUR_EVAL_BASELINE)")
	fs.Var(&floatFlag{&g.failUnder, parseRate}, "fail-under", "fail the run when the pass rate over scored cases is under RATE (0.8 or 80%) (env MURMUR_EVAL_FAIL_UNDER)")
	fs.Var(&floatFlag{&g.maxErrorRate, parseRate}, "max-error-rate", "tolerated share of cases in status error or timeout, 0.05 or 5% (env MURMUR_EVAL_MAX_ERROR_RATE) (default 0)")
	fs.IntVar(&g.maxDivergence, "max-divergence", envInt(env, "MURMUR_EVAL_MAX_DIVERGENCE", 0, errs), "replayed requests that may differ from the recorded ones before the run fails with exit 5, -1 for any (env MURMUR_EVAL_MAX_DIVERGENCE)")
}

func (g *gateOptions) validate() error {
	switch {
	case !(g.alpha > 0 && g.alpha <= 1):
		return errcode.New(errcode.Usage, "--alpha must be in (0, 1], got %g", g.alpha)
	case !(g.maxDropPP >= 0 && g.maxDropPP <= 100):
		return errcode.New(errcode.Usage, "--max-drop must be 0 to 100 percentage points, got %g", g.maxDropPP)
	case g.failUnder > 1:
		return errcode.New(errcode.Usage, "--fail-under must be a rate from 0 to 1 (or 0%% to 100%%), got %g", g.failUnder)
	case g.maxDivergence < -1:
		return errcode.New(errcode.Usage, "--max-divergence must be -1 (any) or more, got %d", g.maxDivergence)
	case !(g.maxErrorRate >= 0 && g.maxErrorRate <= 1):
		return errcode.New(errcode.Usage, "--max-error-rate must be a rate from 0 to 1 (or 0%% to 100%%), got %g", g.maxErrorRate)
	}
	return nil
}

func (g *gateOptions) diffOptions() reports.DiffOptions {
	return reports.DiffOptions{Alpha: g.alpha, MaxDropPP: g.maxDropPP}
}

// verdict is what the gates decided about a finished run.
type verdict struct {
	gates          []reports.GateResult
	budgetExceeded bool // too many error or timeout cases
	diverged       bool // more replay divergences than --max-divergence
	gateFailed     bool // --fail-under or --baseline failed
}

// evaluateGates applies the gates to a run's digest; diff is the comparison
// with --baseline, nil without one.
func evaluateGates(d *reports.Digest, g gateOptions, diff *reports.DiffReport) verdict {
	var v verdict
	budget := reports.GateResult{Gate: "max_error_rate", Passed: d.ErrorRate <= g.maxErrorRate,
		Detail: fmt.Sprintf("%d of %s (%s) in status error or timeout; at most %s allowed",
			d.Unscored, plural(d.PassRateAll.Total, "case"), pct(d.ErrorRate), pct(g.maxErrorRate))}
	v.budgetExceeded = !budget.Passed
	v.gates = append(v.gates, budget)
	if d.ReplayDivergences > 0 {
		gate := reports.GateResult{Gate: "max_divergence", Passed: g.maxDivergence < 0 || d.ReplayDivergences <= g.maxDivergence}
		allowed := fmt.Sprintf("at most %d allowed", g.maxDivergence)
		if g.maxDivergence < 0 {
			allowed = "any allowed (--max-divergence -1)"
		}
		gate.Detail = fmt.Sprintf("%s in %s differed from the recordings; %s", plural(d.ReplayDivergences, "replayed request"), plural(d.DivergedCases, "case"), allowed)
		v.diverged = !gate.Passed
		v.gates = append(v.gates, gate)
	}
	if g.failUnder >= 0 {
		gate := reports.GateResult{Gate: "fail_under"}
		switch r := d.PassRate; {
		case r.Total == 0:
			gate.Detail = "no case was scored"
		default:
			gate.Passed = r.Rate >= g.failUnder
			rel := "at least"
			if !gate.Passed {
				rel = "under"
			}
			gate.Detail = fmt.Sprintf("pass rate %s (%d of %d scored) is %s %s", pct(r.Rate), r.Passed, r.Total, rel, pct(g.failUnder))
		}
		v.gateFailed = v.gateFailed || !gate.Passed
		v.gates = append(v.gates, gate)
	}
	if diff != nil {
		gate := reports.GateResult{Gate: "baseline", Passed: len(diff.Regressions) == 0}
		if gate.Passed {
			gate.Detail = fmt.Sprintf("no scorer regressed against %s (drop > %g points with p < %g)", diff.Base.Path, g.maxDropPP, g.alpha)
		} else {
			var parts []string
			for _, s := range diff.Scorers {
				if s.Regression {
					parts = append(parts, fmt.Sprintf("%s %+.1f points (%d pass→fail, p=%.2g)", s.Scorer, s.PairedChangePP, len(s.PassToFail), s.PValue))
				}
			}
			gate.Detail = "regressed against " + diff.Base.Path + ": " + strings.Join(parts, "; ")
		}
		v.gateFailed = v.gateFailed || !gate.Passed
		v.gates = append(v.gates, gate)
	}
	return v
}

func pct(r float64) string { return strconv.FormatFloat(100*r, 'f', 1, 64) + "%" }

// floatFlag is a pflag.Value parsed by its own function.
type floatFlag struct {
	v     *float64
	parse func(string) (float64, error)
}

func (f *floatFlag) String() string {
	if f.v == nil || *f.v < 0 {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f *floatFlag) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		return err
	}
	*f.v = v
	return nil
}

func (f *floatFlag) Type() string { return "float" }

func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// parseRate reads a rate as a fraction ("0.8") or a percentage ("80%").
func parseRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		v, err := parseFloat(p)
		if err != nil {
			return 0, fmt.Errorf("%q is not a rate like 0.8 or 80%%", s)
		}
		return v / 100, nil
	}
	v, err := parseFloat(t)
	if err != nil || v < 0 || v > 1 {
		return 0, fmt.Errorf("%q is not a rate like 0.8 or 80%%", s)
	}
	return v, nil
}

// parsePoints reads percentage points: "5", "5pp", "2.5".
func parsePoints(s string) (float64, error) {
	t, _ := strings.CutSuffix(strings.TrimSpace(s), "pp")
	v, err := parseFloat(t)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number of percentage points like 5 or 2.5pp", s)
	}
	return v, nil
}

// envFloat reads a default from the environment with parse; a bad value is
// reported once flags are parsed, as envInt does.
func envFloat(env map[string]string, key string, def float64, parse func(string) (float64, error), errs *[]error) float64 {
	v, ok := env[key]
	if !ok || v == "" {
		return def
	}
	f, err := parse(v)
	if err != nil {
		*errs = append(*errs, errcode.New(errcode.Usage, "%s: %v", key, err))
		return def
	}
	return f
}

// divergedError is the one error line of a run that exits 5.
func divergedError(d *reports.Digest, g gateOptions) error {
	return errcode.New(errcode.ReplayDiverged, "%s in %s differed from the recordings; --max-divergence allows %d",
		plural(d.ReplayDivergences, "replayed request"), plural(d.DivergedCases, "case"), g.maxDivergence).
		WithHint("the recordings answer a conversation the capsule no longer has: check murmur.yaml (a tool dropped?) and record again with --record, or pass --max-divergence -1 to allow it")
}
