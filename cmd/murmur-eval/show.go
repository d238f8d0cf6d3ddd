package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

const showUsage = `Usage: murmur-eval show RUN [--json | --markdown]
       murmur-eval show RUN --case ID

Prints the summary of a finished run, read back from its files: its run
folder, or its results.parquet (scores.parquet beside it is read too).
A run folder without results.parquet (its run was killed) is summarised
from its journal, with the command that finishes it.
The counts, pass rates and cases come from the Parquet files; the gates the
run applied come from its summary.json. --markdown prints what summary.md
holds, e.g. for $GITHUB_STEP_SUMMARY; --json what summary.json holds.
--murmur-differences adds, after the text, why cases' verdicts differ
from the ones murmur's mur eval run would give (summary.md's last
section).
--case ID prints one case's transcript instead, each epoch and attempt:
the task, every turn's answer, tool calls and results, hook and denial
events, the end, the scores with their reasons and the workspace diff,
each text bounded to 4 KiB (the rest is named by its file), escaped,
coloured on a terminal only. murmur-eval view writes the same as HTML.

Flags:
`

// runShow is the show command.
func runShow(args []string, env map[string]string, stdout, stderr io.Writer) int {
	var asJSON, asMarkdown, murmurDiffs bool
	var caseID string
	fs := pflag.NewFlagSet("murmur-eval show", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, showUsage); fs.PrintDefaults() }
	fs.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	fs.BoolVar(&asMarkdown, "markdown", false, "print the summary as Markdown")
	fs.StringVar(&caseID, "case", "", "print this case's transcript (every epoch and attempt) instead of the summary")
	fs.BoolVar(&murmurDiffs, "murmur-differences", false, "after the summary, say which cases mur eval run would give another verdict, and why (--markdown always says)")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return usageError(stderr, flagError(fs, err, "murmur-eval show --help"))
	}
	switch {
	case fs.NArg() != 1:
		return usageError(stderr, errcode.New(errcode.Usage, "show takes one RUN, got %d arguments", fs.NArg()).
			WithHint("murmur-eval show runs/<run id>"))
	case asJSON && asMarkdown:
		return usageError(stderr, errcode.New(errcode.Usage, "--json and --markdown are exclusive"))
	case fs.Changed("case") && (asJSON || asMarkdown || murmurDiffs):
		return usageError(stderr, errcode.New(errcode.Usage, "--case prints a transcript: --json, --markdown and --murmur-differences do not apply"))
	}
	lim, err := readLimits(env)
	if err != nil {
		return usageError(stderr, err)
	}
	if fs.Changed("case") {
		if err := showCase(fs.Arg(0), caseID, lim, stdout); err != nil {
			return usageError(stderr, err)
		}
		return exitOK
	}
	var resume []string
	var d reports.Digest
	if journalOnlyRun(fs.Arg(0)) {
		d, resume, err = readKilled(fs.Arg(0))
	} else {
		d, err = collect.ReadDigest(fs.Arg(0), lim)
	}
	if err != nil {
		return usageError(stderr, err)
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
		if err == nil && murmurDiffs {
			err = d.WriteMurmurDifferences(stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	if d.ResumeCommand != "" && !asJSON && !asMarkdown { // an interrupted run: --markdown and --json hold it
		fmt.Fprintf(stdout, "\nfinish it with: %s\n", d.ResumeCommand)
	}
	if d.Stopped == reports.StoppedKilled || d.Stopped == reports.StoppedRunning {
		// On stderr beside --json and --markdown: their output is a file's.
		hint := stderr
		if !asJSON && !asMarkdown {
			hint = stdout
		}
		writeResumeHint(hint, d, resume)
	}
	return exitOK
}

// writeResumeHint says how to finish a killed run: its command line, or,
// from a murmur-eval that did not record it, the run's own with --resume;
// of a running run, that it is running.
func writeResumeHint(w io.Writer, d reports.Digest, resume []string) {
	switch {
	case d.Stopped == reports.StoppedRunning:
		fmt.Fprintln(w, "\nits run is still going (it holds run.lock): show it again when it ends")
		return
	case len(resume) == 0:
		fmt.Fprintln(w, "\nfinish it with the command that started it, --resume RUN in place of --out RUN")
		return
	}
	fmt.Fprintf(w, "\nfinish it with: %s\n", shellLine(resume))
}
