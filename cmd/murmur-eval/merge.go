package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/merge"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/trace"
)

const mergeUsage = `Usage: murmur-eval merge -o OUT SHARD_RUN...

Combines the run folders of the shards of one run (--shard I/N, or a
Kubernetes Indexed Job, or a GitHub Actions matrix) into one run folder,
as if the run had not been sharded: results, scores and events Parquet,
summary.json, summary.md, junit.xml, journal.jsonl and run.json. Rows get
the merged run's id; session_dir points into the shard folders.

Refuses shards of different configurations (capsule, lock, artifacts,
dataset, recordings, selection, epochs, flags), shards that ran the same
(case, epoch), a shard still running (its folder's lock is held), and a
journal it cannot read whole (named at file:line: --resume that shard
first), and shards that leave (case, epoch) pairs of the run unrun,
listing them (--allow-missing writes such a merge, marked incomplete).
Applies the run's gates to the merged run (--fail-under, --max-error-rate,
--max-divergence, --baseline), with the run command's exit codes.

Flags:
`

// runMerge is the merge command.
func runMerge(args []string, env map[string]string, stdout, stderr io.Writer) int {
	var out string
	var passAt []int
	var allowMissing bool
	var g gates.Options
	var envErrs []error
	fs := pflag.NewFlagSet("murmur-eval merge", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, mergeUsage); fs.PrintDefaults() }
	fs.StringVarP(&out, "out", "o", "", "run folder to create for the merged run")
	fs.IntSliceVar(&passAt, "pass-at", envInts(env, "MURMUR_EVAL_PASS_AT", &envErrs), "report the unbiased pass@k for these k, comma separated (env MURMUR_EVAL_PASS_AT)")
	fs.BoolVar(&allowMissing, "allow-missing", envBool(env, "MURMUR_EVAL_ALLOW_MISSING", false, &envErrs), "write the merged run even when no shard ran some of its (case, epoch) pairs; it is marked incomplete (env MURMUR_EVAL_ALLOW_MISSING)")
	registerRunGates(&g, fs, env, &envErrs)
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return usageError(stderr, flagError(fs, err, "murmur-eval merge --help"))
	}
	if len(envErrs) > 0 {
		return usageError(stderr, envErrs[0])
	}
	if err := g.Validate(); err != nil {
		return usageError(stderr, err)
	}
	lim, err := readLimits(env)
	if err != nil {
		return usageError(stderr, err)
	}
	var baseline *reports.RunData
	if g.Baseline != "" {
		if baseline, err = reports.ReadRunLimited(g.Baseline, lim); err != nil {
			return usageError(stderr, err)
		}
	}
	if out == "" || fs.NArg() == 0 {
		return usageError(stderr, errcode.New(errcode.Usage, "merge needs -o OUT and at least one SHARD_RUN").
			WithHint("murmur-eval merge -o runs/merged runs/shard-0 runs/shard-1 runs/shard-2"))
	}
	shards, release, err := merge.ReadShards(fs.Args())
	if err != nil {
		return usageError(stderr, err)
	}
	defer release()
	records, err := merge.Combine(shards)
	if err != nil {
		return usageError(stderr, err)
	}
	missing, planned := merge.Missing(shards, records)
	if err := merge.CheckMissing(stderr, missing, planned, allowMissing); err != nil {
		return usageError(stderr, err)
	}
	folder, err := runfolder.Create(out, trace.NewID("run_"))
	if err != nil {
		return usageError(stderr, err)
	}
	defer folder.Unlock()
	outAbs, runID := absPath(out), folder.RunID
	merge.Rebase(records, runID, outAbs)
	m := merge.Output{Dir: outAbs, Out: out, RunID: runID, First: shards[0].Run, PassAt: passAt, Gates: g, Baseline: baseline, Limits: lim,
		Planned: max(planned, len(records)), Missing: len(missing) > 0, Version: buildVersion()}
	w, err := m.Open()
	if err != nil {
		return usageError(stderr, err)
	}
	d, v, err := w.Write(records, stderr)
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	files := []reports.OutputFile{{Label: "results", Path: filepath.Join(out, reports.ResultsFile)}}
	if err := d.WriteText(stdout, files); err != nil {
		return exitFailure
	}
	return gateExit(v, &d, g, stderr)
}

// gateExit is the exit code of a finished run's verdict (exitcodes.go),
// printing the replay divergence's error.
func gateExit(v gates.Verdict, d *reports.Digest, g gates.Options, stderr io.Writer) int {
	if d.Baseline != nil {
		detectionNote(d.Baseline, g, stderr)
	}
	switch {
	case v.BudgetExceeded:
		return exitErrorBudget
	case v.Diverged:
		fmt.Fprintln(stderr, errcode.Format(gates.DivergedError(d, g)))
		return exitDiverged
	case v.GateFailed:
		return exitGateFailed
	}
	return exitOK
}
