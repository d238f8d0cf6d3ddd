package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

const showUsage = `Usage: murmur-eval show RUN [--json | --markdown]

Prints the summary of a finished run, read back from its files: its run
folder, or its results.parquet (scores.parquet beside it is read too).
The counts, pass rates and cases come from the Parquet files; the gates the
run applied come from its summary.json. --markdown prints what summary.md
holds, e.g. for $GITHUB_STEP_SUMMARY; --json what summary.json holds.

Flags:
`

// runShow is the show command.
func runShow(args []string, env map[string]string, stdout, stderr io.Writer) int {
	var asJSON, asMarkdown bool
	fs := pflag.NewFlagSet("murmur-eval show", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, showUsage); fs.PrintDefaults() }
	fs.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	fs.BoolVar(&asMarkdown, "markdown", false, "print the summary as Markdown")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return usageError(stderr, errcode.New(errcode.Usage, "%v", err).WithHint("%s", "murmur-eval show --help"))
	}
	switch {
	case fs.NArg() != 1:
		return usageError(stderr, errcode.New(errcode.Usage, "show takes one RUN, got %d arguments", fs.NArg()).
			WithHint("murmur-eval show runs/<run id>"))
	case asJSON && asMarkdown:
		return usageError(stderr, errcode.New(errcode.Usage, "--json and --markdown are exclusive"))
	}
	lim, err := readLimits(env)
	if err != nil {
		return usageError(stderr, err)
	}
	run, err := reports.ReadRunLimited(fs.Arg(0), lim)
	if err == nil && run.Results == nil {
		err = errcode.New(errcode.Usage, "%s is a scores file alone; show needs the run's results.parquet", fs.Arg(0))
	}
	if err != nil {
		return usageError(stderr, err)
	}
	d := run.Summary().Digest(0)
	dir := fs.Arg(0)
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	if recorded := readSummaryJSON(dir); recorded != nil {
		d.Gates, d.Baseline, d.WallMS = recorded.Gates, recorded.Baseline, recorded.WallMS
		if recorded.Planned > 0 || recorded.Version != "" { // written by a murmur-eval that records them
			d.Complete, d.Planned, d.Ran, d.Stopped, d.Resumed = recorded.Complete, recorded.Planned, recorded.Ran, recorded.Stopped, recorded.Resumed
			d.Version = recorded.Version
			d.MissingTools = recorded.MissingTools // from events.parquet, which show does not read
		}
	}
	if d.Gates == nil {
		d.Gates = []reports.GateResult{}
	}
	switch {
	case asJSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(d)
	case asMarkdown:
		err = d.WriteMarkdown(stdout)
	default:
		err = d.WriteText(stdout, nil)
	}
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	return exitOK
}
