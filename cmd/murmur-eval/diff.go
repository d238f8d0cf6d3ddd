package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/reports"
)

const diffUsage = `Usage: murmur-eval diff BASE HEAD [--json] [--alpha A] [--max-drop PP]

Compares two finished runs, each given as its run folder or one of its
Parquet files (results.parquet, scores.parquet). Per scorer, and for the
cases' overall verdict: the pass rate of each run with its 95% Wilson
interval and the change; on the cases scored in both runs, the cases that
went pass→fail and fail→pass and McNemar's exact test. Cases present in one
run only are listed.

A scorer regressed when, on the paired cases, its pass rate dropped by more
than --max-drop points and McNemar's p < --alpha.

The comparison says what it can detect: the smallest drop McNemar's test
can call significant with the paired cases at --alpha. When that is more
than --max-drop, or no drop can be, it says so on stderr (E-EVL-006), a
warning unless --require-detectable.

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
	fs.BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return usageError(stderr, flagError(fs, err, "murmur-eval diff --help"))
	}
	if len(envErrs) > 0 {
		return usageError(stderr, envErrs[0])
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
	r := reports.Diff(base, head, g.DiffOptions())
	if asJSON {
		err = r.WriteJSON(stdout)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	undetectable := detectionNote(r, g, stderr)
	if len(r.Regressions) > 0 || undetectable {
		return exitGateFailed
	}
	return exitOK
}
