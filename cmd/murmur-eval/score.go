package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/merge"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/trace"
)

const scoreUsage = `Usage: murmur-eval score RUN --out DIR [--capsule DIR] [--dataset FILE]
         [--judge-model NAME [--replay DIR | --record DIR]]

Scores a finished run again, from its kept session folders, with the
capsule's manifest (observability.eval), the dataset's expected values and
the judge settings as they are now: no model of the agent is asked and no
tool runs. The new run folder DIR has results, scores and events Parquet,
summary.json, summary.md, junit.xml, a journal and a run.json naming the
run it re-scores; its cases/ links lead to RUN's session folders, so show,
view, diff and report read it like any run. RUN is only read.

RUN may be a merged run (murmur-eval merge): its session folders are in
its shards' folders. --capsule and --dataset default to the ones RUN ran
with (its run.json; a merged run's shards').

Each (case, epoch) row's last attempt: a passed or failed case whose
session folder is kept is scored again (status from the new scores:
passed when every scorer passes); a case in error, timeout or cancelled is
copied as it was (it has no verdict to redo); a case whose session folder
was not kept becomes an error with code E-EVL-092 and no scores, listed
on stderr: no verdict is guessed. An expected check command runs again,
sandboxed as in a run, in a copy of the session folder made under DIR's
sessions/ (which the row then names). A case no longer in the dataset is
scored by the manifest's scorers alone. llm_judge scorers (the
manifest's, a case's expected.rubric) are judged again by the judge the
--judge-* flags name (no judge: refused, E-EVL-090, unless --run-anyway);
--replay DIR serves the judge's answers a run or score recorded with
--record DIR, so nothing is asked at all. Other columns (tokens, timings,
session_id) are copied. Applies the run's gates (--fail-under,
--max-error-rate, --baseline) with the run command's exit codes.

Flags:
`

// scoreOptions are the score command's flags and arguments.
type scoreOptions struct {
	run, out         string
	capsule, dataset string
	checkTimeout     time.Duration
	judge            judgeOptions
	// replay and record serve or keep the judge's answers (DIR/judge);
	// runAnyway scores without a judge the llm_judge scorers need.
	replay, record string
	runAnyway      bool
	workers        int
	passAt         []int
	gates          gates.Options
	prices         priceOptions // prices the judge's new scores (judge_cost_usd)
}

// runScore is the score command.
func runScore(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) int {
	o, code, ok := parseScoreFlags(args, env, stderr)
	if !ok {
		return code
	}
	lim, err := readLimits(env)
	if err != nil {
		return usageError(stderr, err)
	}
	var baseline *reports.RunData
	if o.gates.Baseline != "" {
		if baseline, err = reports.ReadRunLimited(o.gates.Baseline, lim); err != nil {
			return usageError(stderr, err)
		}
	}
	shards, release, err := merge.ReadShards([]string{o.run})
	if err != nil {
		var ce *errcode.Error
		if errcode.Is(err, errcode.IONotFound) && errors.As(err, &ce) {
			err = ce.WithHint("score takes a run folder: the --out of a run or of a merge, with its run.json and journal.jsonl")
		}
		return usageError(stderr, err)
	}
	defer release()
	src := shards[0]
	in, err := loadScoreInputs(o, src, env, stderr)
	if err != nil {
		return usageError(stderr, err)
	}
	mods, err := scoreJudge(o, &in, stderr, env)
	if err != nil {
		return usageError(stderr, err)
	}
	defer mods.Close()
	folder, err := runfolder.Create(o.out, trace.NewID("run_"))
	if err != nil {
		return usageError(stderr, err)
	}
	defer folder.Unlock()
	outAbs, runID, start := absPath(o.out), folder.RunID, time.Now()
	fmt.Fprintf(stderr, "murmur-eval score %s: %d (case, epoch) rows of %s (%s) with %s and %s -> %s\n",
		runID, len(src.Records), o.run, src.Run.RunID, in.capsuleDir, in.datasetPath, o.out)
	box := &checkBox{outDir: outAbs, resources: in.resources}
	defer box.Close()
	rs := rescorer{plan: in.plan, expected: in.expected, runDir: absPath(o.run), outDir: outAbs, checks: box, judged: newJudgeObserver(), prices: o.prices.table}
	records, tally := rs.all(ctx, src.Records, o.workers)
	tally.print(stderr)
	rs.judged.print(stderr)
	merge.Rebase(records, runID, outAbs)
	w := scoreOutput{dir: outAbs, out: o.out, run: scoreRunFile(runID, src, in), passAt: o.passAt, gates: o.gates, baseline: baseline, limits: lim,
		from: readRunState(o.run, len(records)), started: start}
	d, v, err := w.write(records, stderr)
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	files := []reports.OutputFile{{Label: "results", Path: filepath.Join(o.out, reports.ResultsFile)}}
	if err := d.WriteText(stdout, files); err != nil {
		return exitFailure
	}
	return gateExit(v, &d, o.gates, stderr)
}

// parseScoreFlags parses and checks the score command's line; ok is false,
// with the exit code, when the command stops here (--help, a usage error).
func parseScoreFlags(args []string, env map[string]string, stderr io.Writer) (o scoreOptions, code int, ok bool) {
	var envErrs []error
	fs := pflag.NewFlagSet("murmur-eval score", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, scoreUsage); fs.PrintDefaults() }
	fs.StringVarP(&o.out, "out", "o", "", "run folder to create for the re-scored run (new or empty)")
	fs.StringVar(&o.capsule, "capsule", "", "the capsule folder whose murmur.yaml scores (default: the one RUN ran)")
	fs.StringVar(&o.dataset, "dataset", "", "the dataset whose expected values score (default: the one RUN ran)")
	fs.DurationVar(&o.checkTimeout, "check-timeout", envDuration(env, "MURMUR_EVAL_CHECK_TIMEOUT", scoring.DefaultCheckTimeout, &envErrs), "time limit of an expected check command without its own timeout_seconds (env MURMUR_EVAL_CHECK_TIMEOUT)")
	fs.IntSliceVar(&o.passAt, "pass-at", envInts(env, "MURMUR_EVAL_PASS_AT", &envErrs), "report the unbiased pass@k for these k, comma separated (env MURMUR_EVAL_PASS_AT)")
	registerJudgeFlags(&o.judge, fs, env, &envErrs)
	fs.StringVar(&o.replay, "replay", env["MURMUR_EVAL_REPLAY"], "serve the judge's answers from DIR/judge, recorded by a run's or score's --record (env MURMUR_EVAL_REPLAY)")
	fs.StringVar(&o.record, "record", env["MURMUR_EVAL_RECORD"], "record the judge's answers into DIR/judge (env MURMUR_EVAL_RECORD)")
	fs.IntVar(&o.workers, "workers", envInt(env, "MURMUR_EVAL_WORKERS", runtime.NumCPU(), &envErrs), "cases scored at once (env MURMUR_EVAL_WORKERS)")
	fs.BoolVar(&o.runAnyway, "run-anyway", false, "score without a judge model although llm_judge scorers need one: they are not applied")
	registerRunGates(&o.gates, fs, env, &envErrs)
	o.prices.register(fs, env)
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return o, exitOK, false
		}
		return o, usageError(stderr, flagError(fs, err, "murmur-eval score --help")), false
	}
	if len(envErrs) > 0 {
		return o, usageError(stderr, envErrs[0]), false
	}
	if err := o.gates.Validate(); err != nil {
		return o, usageError(stderr, err), false
	}
	if err := o.judge.validate(); err != nil {
		return o, usageError(stderr, err), false
	}
	if err := o.prices.load(); err != nil {
		return o, usageError(stderr, err), false
	}
	if o.workers < 1 {
		return o, usageError(stderr, errcode.New(errcode.Usage, "--workers must be at least 1, got %d", o.workers)), false
	}
	if o.checkTimeout <= 0 {
		return o, usageError(stderr, errcode.New(errcode.Usage, "--check-timeout must be positive, got %s", o.checkTimeout)), false
	}
	if fs.NArg() != 1 || o.out == "" {
		return o, usageError(stderr, errcode.New(errcode.Usage, "score takes one RUN and --out DIR, got %d arguments", fs.NArg()).
			WithHint("murmur-eval score runs/<run id> --out runs/rescored")), false
	}
	o.run = fs.Arg(0)
	if insideDir(absPath(o.out), absPath(o.run)) {
		return o, usageError(stderr, errcode.New(errcode.Usage, "--out %s is inside RUN %s: score never writes into the run it reads", o.out, o.run).
			WithHint("choose an --out folder outside %s", o.run)), false
	}
	return o, exitOK, true
}

// insideDir reports whether path is dir or lies beneath it.
func insideDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && (rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))))
}
