package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// registerDiffGates adds the flags that define a regression.
func registerDiffGates(g *gates.Options, fs *pflag.FlagSet, env map[string]string, errs *[]error) {
	g.Alpha = envFloat(env, "MURMUR_EVAL_ALPHA", gates.DefaultAlpha, gates.ParseFloat, errs)
	g.MaxDropPP = envFloat(env, "MURMUR_EVAL_MAX_DROP", gates.DefaultMaxDropPP, gates.ParsePoints, errs)
	fs.Var(&floatFlag{&g.Alpha, gates.ParseFloat}, "alpha", "significance level of the McNemar test for a regression (env MURMUR_EVAL_ALPHA)")
	fs.Var(&floatFlag{&g.MaxDropPP, gates.ParsePoints}, "max-drop", "tolerated drop in pass rate, in percentage points, before a significant drop is a regression (env MURMUR_EVAL_MAX_DROP) (default 0)")
}

// registerRequireDetectable adds --require-detectable, which run, merge
// and diff take (report never fails on what it finds).
func registerRequireDetectable(g *gates.Options, fs *pflag.FlagSet, env map[string]string, errs *[]error) {
	fs.BoolVar(&g.RequireDetectable, "require-detectable", envBool(env, "MURMUR_EVAL_REQUIRE_DETECTABLE", false, errs),
		"fail the baseline gate (exit 4, E-EVL-006) when its paired cases are too few to detect a drop of --max-drop points, or any drop; by default a warning (env MURMUR_EVAL_REQUIRE_DETECTABLE)")
}

// registerRunGates adds the run's gates: the diff's flags, --baseline,
// --fail-under and --max-error-rate.
func registerRunGates(g *gates.Options, fs *pflag.FlagSet, env map[string]string, errs *[]error) {
	registerDiffGates(g, fs, env, errs)
	registerRequireDetectable(g, fs, env, errs)
	g.FailUnder = envFloat(env, "MURMUR_EVAL_FAIL_UNDER", -1, gates.ParseRate, errs)
	g.MaxErrorRate = envFloat(env, "MURMUR_EVAL_MAX_ERROR_RATE", gates.DefaultMaxErrorRate, gates.ParseRate, errs)
	fs.StringVar(&g.Baseline, "baseline", env["MURMUR_EVAL_BASELINE"], "compare with this earlier run (its folder or a Parquet file) and fail on a regression (env MURMUR_EVAL_BASELINE)")
	fs.Var(&floatFlag{&g.FailUnder, gates.ParseRate}, "fail-under", "fail the run when the pass rate over scored cases is under RATE (0.8 or 80%) (env MURMUR_EVAL_FAIL_UNDER)")
	fs.Var(&floatFlag{&g.MaxErrorRate, gates.ParseRate}, "max-error-rate", "tolerated share of cases in status error, timeout or over_budget, 0.05 or 5% (env MURMUR_EVAL_MAX_ERROR_RATE) (default 0)")
	registerJudgeGates(g, fs, env, errs)
	fs.IntVar(&g.MaxDivergence, "max-divergence", envInt(env, "MURMUR_EVAL_MAX_DIVERGENCE", 0, errs), "replayed requests that may differ from the recorded ones before the run fails with exit 5, -1 for any (env MURMUR_EVAL_MAX_DIVERGENCE)")
}

// registerJudgeGates adds --judge-labels and --judge-min-kappa: which
// judge scorers the gates count (gates.Options.Validate reads the file).
func registerJudgeGates(g *gates.Options, fs *pflag.FlagSet, env map[string]string, errs *[]error) {
	g.JudgeMinKappa = envFloat(env, "MURMUR_EVAL_JUDGE_MIN_KAPPA", reports.DefaultJudgeMinKappa, gates.ParseFloat, errs)
	fs.StringVar(&g.JudgeLabelsFile, "judge-labels", env["MURMUR_EVAL_JUDGE_LABELS"], "people's verdicts on llm_judge scorers' cases, JSONL lines {\"case_id\", \"scorer\", \"label\": \"pass\"|\"fail\"}, to calibrate the judges against (env MURMUR_EVAL_JUDGE_LABELS)")
	fs.Var(&floatFlag{&g.JudgeMinKappa, gates.ParseFloat}, "judge-min-kappa", "Cohen's kappa against --judge-labels from which a judge scorer counts toward --fail-under and --baseline; the gates leave out the others (env MURMUR_EVAL_JUDGE_MIN_KAPPA)")
}

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

// detectionNote prints, when the comparison cannot detect a drop of
// --max-drop points (or any), its E-EVL-006: an error line under
// --require-detectable, which it reports with true, a warning otherwise.
func detectionNote(r *reports.DiffReport, g gates.Options, stderr io.Writer) bool {
	err := gates.DetectionError(r, g)
	if err == nil {
		return false
	}
	if g.RequireDetectable {
		fmt.Fprintln(stderr, errcode.Format(err))
		return true
	}
	fmt.Fprintf(stderr, "murmur-eval: warning[%s]: %s\n", errcode.GateUndetectable, err.Error())
	return false
}
