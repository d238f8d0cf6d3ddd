package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/reports"
)

const diffUsage = `Usage: murmur-eval diff BASE HEAD [--json] [--alpha A] [--max-drop PP]
       murmur-eval diff --variant A --variant B RUN [--json] [--alpha A] [--max-drop PP]

Compares two finished runs, each given as its run folder or one of its
Parquet files (results.parquet, scores.parquet). Per scorer, and for the
cases' overall verdict: the pass rate of each run with its 95% Wilson
interval and the change; on the cases scored in both runs, the cases that
went pass→fail and fail→pass and McNemar's exact test. Cases present in one
run only are listed. With --variant twice and one RUN, the rows of two
variants of that run (--models, --variants) are compared the same way,
variant A's as the base.

A scorer regressed when, on the paired cases, its pass rate dropped by more
than --max-drop points and McNemar's p < --alpha.

The comparison says what it can detect: the smallest drop McNemar's test
can call significant with the paired cases at --alpha. When that is more
than --max-drop, or no drop can be, it says so on stderr (E-EVL-006), a
warning unless --require-detectable.

An llm_judge scorer counts toward the regression check only when HEAD's
judge is calibrated: --judge-labels FILE holds people's verdicts, and its
Cohen's kappa against them reaches --judge-min-kappa (default 0.6). The
check compares the runs without the other judge scorers (each case's
verdict by the rest of its scorers) and says which it left out; the
comparison printed shows every scorer.

Exit codes: 0 no regression; 2 usage error or a run that cannot be read;
4 a scorer regressed, or with --require-detectable a comparison that
cannot detect a drop of --max-drop points.

Flags:
`

// runDiff is the diff command.
func runDiff(args []string, env map[string]string, stdout, stderr io.Writer) int {
	var g gates.Options
	var asJSON bool
	var envErrs []error
	fs := pflag.NewFlagSet("murmur-eval diff", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, diffUsage); fs.PrintDefaults() }
	registerDiffGates(&g, fs, env, &envErrs)
	registerRequireDetectable(&g, fs, env, &envErrs)
	registerJudgeGates(&g, fs, env, &envErrs)
	fs.BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	var variants []string
	fs.StringArrayVar(&variants, "variant", nil, "compare two variants of one run (--models, --variants): --variant A --variant B RUN, A's rows as the base")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return usageError(stderr, flagError(fs, err, "murmur-eval diff --help"))
	}
	if len(envErrs) > 0 {
		return usageError(stderr, envErrs[0])
	}
	if len(variants) > 0 {
		return diffVariants(fs.Args(), variants, g, asJSON, env, stdout, stderr)
	}
	if fs.NArg() != 2 {
		return usageError(stderr, errcode.New(errcode.Usage, "diff takes two runs, BASE and HEAD; got %d arguments", fs.NArg()).
			WithHint("murmur-eval diff runs/last-night runs/tonight"))
	}
	if err := g.Validate(); err != nil {
		return usageError(stderr, err)
	}
	lim, err := readLimits(env)
	if err != nil {
		return usageError(stderr, err)
	}
	base, err := reports.ReadRunLimited(fs.Arg(0), lim)
	if err != nil {
		return usageError(stderr, err)
	}
	head, err := reports.ReadRunLimited(fs.Arg(1), lim)
	if err != nil {
		return usageError(stderr, err)
	}
	return compareRuns(base, head, g, asJSON, stdout, stderr)
}

// compareRuns prints the comparison of two runs read back and returns
// diff's exit code.
func compareRuns(base, head *reports.RunData, g gates.Options, asJSON bool, stdout, stderr io.Writer) int {
	r := reports.Diff(base, head, g.DiffOptions())
	regressions, note := judgeGatedRegressions(base, head, r, g)
	var err error
	if asJSON {
		err = r.WriteJSON(stdout)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	if note != "" {
		out := stdout
		if asJSON {
			out = stderr // stdout holds one JSON document
		}
		fmt.Fprintf(out, "murmur-eval: %s\n", note)
	}
	undetectable := detectionNote(r, g, stderr)
	if len(regressions) > 0 || undetectable {
		return exitGateFailed
	}
	return exitOK
}

// judgeGatedRegressions are the scorers that regressed when the runs are
// compared without the judge scorers HEAD's labels do not calibrate, and
// the line that says what was left out; r's own when there is none.
func judgeGatedRegressions(base, head *reports.RunData, r *reports.DiffReport, g gates.Options) ([]string, string) {
	judges := head.Judges(g.JudgeLabels, g.JudgeMinKappa)
	b, h, ok := gates.WithoutUncalibratedJudges(base, head, gates.KeepJudge(&reports.Digest{Judges: judges}))
	if !ok {
		return r.Regressions, ""
	}
	gated := reports.Diff(b, h, g.DiffOptions())
	left := cmp.Or(gates.JudgesLeftOut(judges), "left out BASE's judge scorers, which HEAD does not have")
	regressed := "none"
	if len(gated.Regressions) > 0 {
		regressed = strings.Join(gated.Regressions, ", ")
	}
	return gated.Regressions, fmt.Sprintf("the regression check %s; regressed without them: %s", left, regressed)
}
