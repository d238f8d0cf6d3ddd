package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/reports/trend"
)

const reportUsage = `Usage: murmur-eval report RUN... [-o report.html] [--title T] [--views DIR]
                          [--alpha A] [--max-drop PP] [--outage-rate RATE] [--flaky-flips N]

Writes one self-contained HTML page (styles and charts inline, no script,
nothing fetched) over one or many finished runs, each given as its run
folder or its results.parquet, ordered by start time (the earliest
started_at of each run's cases). Everything on it comes from the runs'
Parquet files, so a page can be rebuilt from archived runs:

  - findings in plain sentences: the latest run against the previous one
    (McNemar's exact test, as diff), harness outages, flaky cases;
  - pass rate per scorer across runs, with 95% Wilson intervals;
  - each run's cases by status (passed, failed, error, timeout);
  - the cases that went pass→fail and fail→pass in the latest run;
  - a case × run grid, the cases that flip most first;
  - the latest run's wall time per stage and tokens per case.

With --views DIR, each case in the grid and each flip links to the case's
page in its run's view site, DIR/<run id> (murmur-eval view): a site
already there is used as it is, a missing one is written, with the run
before it as its baseline so its flips show side by side. Then the page
links to files beside it: publish DIR with it.

The findings are printed on stdout too. A report never fails on what it
finds: use diff or run --baseline to gate. A run of another dataset or
capsule than the run before it (run.json's fingerprint: the dataset's
lines, the task files they name, murmur.yaml, murmur.lock, the artifacts;
or the capsule's name and version) is named in a warning on stderr and a
finding at the top of the page: the page is still written, for a dataset
changed on purpose is a dashboard's ordinary life.

Exit codes: 0 written; 1 the page could not be written; 2 usage error or a
run that cannot be read.

Flags:
`

// runReport is the report command.
func runReport(args []string, env map[string]string, stdout, stderr io.Writer) int {
	var g gates.Options
	var envErrs []error
	var out, title, views string
	opt := trend.DefaultOptions()
	fs := pflag.NewFlagSet("murmur-eval report", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsage); fs.PrintDefaults() }
	registerDiffGates(&g, fs, env, &envErrs)
	fs.StringVarP(&out, "output", "o", "report.html", "the HTML file to write")
	fs.StringVar(&title, "title", "", "the page's title (default \"murmur-eval: N runs\")")
	fs.StringVar(&views, "views", "", "link each case to its page in the runs' view sites, DIR/<run id>, writing the missing ones")
	fs.Var(&floatFlag{&opt.OutageRate, gates.ParseRate}, "outage-rate", "share of a run's cases in error or timeout from which the run is called a harness outage")
	fs.IntVar(&opt.FlakyFlips, "flaky-flips", opt.FlakyFlips, "verdict flips (pass↔fail) across the runs from which a case is called flaky")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return usageError(stderr, flagError(fs, err, "murmur-eval report --help"))
	}
	if len(envErrs) > 0 {
		return usageError(stderr, envErrs[0])
	}
	switch {
	case fs.NArg() == 0:
		return usageError(stderr, errcode.New(errcode.Usage, "report takes at least one RUN").
			WithHint("murmur-eval report runs/* -o report.html"))
	case opt.OutageRate <= 0 || opt.OutageRate > 1:
		return usageError(stderr, errcode.New(errcode.Usage, "--outage-rate must be in (0, 1], got %g", opt.OutageRate))
	case opt.FlakyFlips < 1:
		return usageError(stderr, errcode.New(errcode.Usage, "--flaky-flips must be at least 1, got %d", opt.FlakyFlips))
	}
	if err := g.Validate(); err != nil {
		return usageError(stderr, err)
	}
	opt.Alpha, opt.MaxDropPP = g.Alpha, g.MaxDropPP
	lim, err := readLimits(env)
	if err != nil {
		return usageError(stderr, err)
	}
	runs, err := trend.LoadLimited(fs.Args(), lim)
	if err != nil {
		return usageError(stderr, err)
	}
	r := trend.Build(runs, opt)
	for _, c := range r.InputChanges {
		fmt.Fprintf(stderr, "murmur-eval report: warning: %s\n", c.Text())
	}
	if views != "" {
		if err := linkViews(context.Background(), r, views, out, stderr); err != nil {
			fmt.Fprintln(stderr, errcode.Format(err))
			return exitFailure
		}
	}
	size, err := trend.WriteFile(out, r, title)
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	for _, f := range r.Findings {
		fmt.Fprintln(stdout, f.Text)
	}
	fmt.Fprintf(stderr, "murmur-eval report: %s -> %s (%d KiB)\n", plural(len(runs), "run"), out, (size+1023)/1024)
	return exitOK
}
