package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/cache"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/pipeline/pacing"
	"github.com/murmur-nexus/murmur-eval/progress"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/stages"
	"github.com/murmur-nexus/murmur-eval/survey"
	"github.com/murmur-nexus/murmur-eval/telemetry"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// inputs are what a run reads before it touches its folder: the dataset
// and the selected cases, the scoring plan, the limits for reading runs
// back, the --baseline run, and the configuration warnings so far.
type inputs struct {
	ds    *datasets.Dataset
	cases datasets.Picked // the selected cases of ds
	plan  *scoring.Plan
	// commands: a selected case runs a dataset command (a setup, or an
	// expected check) through the launcher.
	commands bool
	// inputs is the fingerprint's inputs part (runfolder.InputsDigest).
	inputs   string
	readLim  reports.ReadLimits
	baseline *reports.RunData
	warn     *configWarnings
	// judged: the run has llm_judge scorers and a judge model to score
	// them.
	judged bool
}

// loadInputs loads and checks the run's inputs; any error is a usage
// error (exit 2).
func loadInputs(o options, env map[string]string, stderr io.Writer) (inputs, error) {
	var in inputs
	plan, planWarnings := survey.NewPlan(o.capsuleDir, env, o.checkTimeout)
	sv := survey.New(plan, o.dataset)
	ds, err := datasets.Options{AllowTaskOutside: o.allowTaskOutside, Visit: sv.Visit}.Load(o.dataset)
	if err != nil {
		return in, err
	}
	in.ds = ds
	in.cases = o.batch.selection().Apply(ds)
	warning, err := o.batch.selection().CheckPicked(ds, in.cases)
	if err != nil {
		return in, err
	}
	if warning != "" {
		fmt.Fprintf(stderr, "murmur-eval: warning: %s\n", warning)
	}
	in.warn = &configWarnings{w: stderr, runAnyway: o.runAnyway}
	if ids := ds.FromWorkingDir(); len(ids) > 0 {
		in.warn.add(survey.Notef("%s: task_path of %s found relative to the working directory, as murmur reads it, not to the dataset's folder (%s); the dataset runs differently from elsewhere",
			o.dataset, plural(len(ids), "case"), strings.Join(ids[:min(len(ids), 3)], ", ")))
	}
	for _, w := range planWarnings {
		in.warn.add(w)
	}
	unread, err := sv.CheckExpected()
	if err != nil {
		in.warn.printHeld() // what would refuse the run too, before the error
		return in, err
	}
	for _, w := range unread {
		in.warn.add(w)
	}
	if err := o.variants.check(survey.ReadManifest(o.capsuleDir, env)); err != nil {
		return in, err
	}
	in.plan, in.commands = plan, sv.RunsCommands(in.cases)
	in.judged = sv.Judged(in.cases)
	switch {
	case in.judged && !o.judge.configured():
		in.warn.add(survey.JudgeMissing())
		in.judged = false // with --run-anyway: not applied
	case !in.judged && o.judge.configured():
		in.warn.add(survey.Notef("--judge-model %s: no llm_judge scorer in murmur.yaml and no selected case with expected.rubric; nothing is judged", o.judge.model))
	}
	warnMurmurRefusals(o, env, in.warn)
	if err := in.warn.refuse(); err != nil {
		return in, err // before the run folder is made: nothing to clear
	}
	if err := in.warn.strict(); err != nil && o.strict {
		return in, err
	}
	if in.readLim, err = readLimits(env); err != nil {
		return in, err
	}
	if o.gates.Baseline != "" {
		if in.baseline, err = reports.ReadRunLimited(o.gates.Baseline, in.readLim); err != nil {
			return in, err
		}
	}
	if in.inputs, err = runfolder.InputsDigest(o.dataset, sv.Files); err != nil {
		return in, err
	}
	return in, nil
}

// preparation is how the run-wide work went: its failure (nil when the
// capsule is ready), and the error codes already printed.
type preparation struct {
	err     error
	printed map[string]bool
}

// prepare does the run-wide work (manifest, lock, artifact hashes, WASM
// compilation) before the first case, so no case's --timeout pays for it.
// A failure refuses the capsule: no case starts, the run folder is
// cleared as nothing ran (a resumed run's is left as it was), and the
// error is the last thing printed, after one line saying so; the run exits
// with the configuration code. ok is false, with the exit code, when the
// run must stop here (a refused capsule, or --strict and a warning); an
// interrupt during preparation goes on to be reported as one.
func prepare(ctx context.Context, st runStages, o options, folder *runfolder.Folder, warn *configWarnings, stderr io.Writer) (p preparation, code int, ok bool) {
	var warm sync.WaitGroup
	if st.warm != nil {
		warm.Go(st.warm) // beside the capsule's preparation: it needs none of it
	}
	took, prepErr := st.graph.Prepare(ctx)
	warm.Wait()
	// An unreachable endpoint is printed once, at the end, for the run.
	p = preparation{err: prepErr, printed: map[string]bool{errcode.EndpointUnreachable: true}}
	if prepErr != nil {
		if ctx.Err() != nil {
			return p, 0, true
		}
		if folder.Prev == nil {
			runfolder.Clear(o.out) // nothing ran: the same --out can be used again
		}
		fmt.Fprintln(stderr, "murmur-eval: the capsule was refused while it was prepared; no case was started")
		return p, usageError(stderr, prepErr), false
	}
	for _, w := range st.verifier.Warnings() {
		fmt.Fprintln(stderr, w)
	}
	for _, u := range st.verifier.UnknownKeys() {
		warn.add(survey.UnknownKey(u))
	}
	if err := warn.strict(); err != nil && o.strict {
		if folder.Prev == nil {
			runfolder.Clear(o.out) // nothing ran: the same --out can be used again
		}
		return p, usageError(stderr, err), false
	}
	fmt.Fprintf(stderr, "capsule prepared in %s\n", took.Round(time.Millisecond))
	return p, 0, true
}

// preparedRun is a run whose capsule is prepared, about to run its cases.
type preparedRun struct {
	o           options
	env         map[string]string
	in          inputs
	folder      *runfolder.Folder
	outAbs      string
	graph       *pipeline.Graph
	prep        preparation
	stopRun     context.CancelCauseFunc
	heapProfile func() error
	intr        *interruption
	cacheStats  func() cache.Stats // the model-turn cache's counts (--cache)
	conns       *connectionLog     // the model endpoints' requests in flight
	budgets     runBudgets         // --max-cost and the case budgets
}

// run opens the journal, the telemetry and the sinks, runs the cases not
// yet journaled through the collector, and finishes the run.
func (r preparedRun) run(ctx context.Context, stdout, stderr io.Writer) int {
	o := r.o
	jn, err := openJournal(o, r.env, r.in.inputs, r.folder, r.outAbs, runfolder.Bounds(r.in.ds, r.in.cases, o.batch.epochs, o.batch.retries), stderr)
	if err != nil {
		return usageError(stderr, err)
	}
	defer jn.Close()
	records := jn.Records
	njobs, jobs := runfolder.PlanJobs(r.in.ds, r.in.cases, o.batch.epochs, o.variants.set.Names(), jn.Done)
	r.budgets.limit.chargeRecords(records, r.budgets.prices)
	jobs = r.intr.jobs(r.budgets.limit.jobs(jobs))
	tel, err := telemetry.Start(ctx, telemetry.Config{Endpoint: o.batch.otelEndpoint, Version: buildVersion()})
	if err != nil {
		return usageError(stderr, err)
	}
	defer shutdownTelemetry(tel, stderr)
	ctx, runSpan := tel.StartRun(ctx, telemetry.Run{ID: r.folder.RunID, Dataset: o.dataset, Cases: njobs, Epochs: o.batch.epochs, Shard: o.batch.shard.String()})
	r.conns.open(r.outAbs, runSpan)
	scores, err := collect.NewScoreSink(r.outAbs)
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	sinks, err := collect.OpenSinks(r.outAbs, r.stopRun)
	if err != nil {
		_ = scores.Sink.Abort()
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	scores.Start(r.stopRun)
	runner := r.runner(tel, stderr)
	start := time.Now()
	verb := "case"
	if r.folder.Prev != nil {
		verb = fmt.Sprintf("case to resume (%d finished)", len(records))
	}
	fmt.Fprintf(stderr, "murmur-eval %s: %d %s from %s on %s -> %s\n", r.folder.RunID, njobs, pluralWord(njobs, verb), o.dataset, plural(o.workers, "worker"), o.out)
	summary := &reports.Summary{}
	summary.SetPassAt(o.batch.passAt)
	summary.SetEpochs(o.batch.epochs)
	summary.SetVariants(o.variants.set.Names())
	summary.SetJudges(o.gates.JudgeLabels, o.gates.JudgeMinKappa)
	col := &collect.Collector{OutDir: r.outAbs, Sinks: sinks, Scores: scores, Summary: summary, JUnit: reports.NewSpillingJUnit(r.outAbs),
		Stderr: stderr, CaseRun: withPrices(stages.CaseRun, o.prices.table), Printed: r.prep.printed, Journal: jn.Writer, Keep: o.batch.keepSessions, OnFail: r.stopRun,
		Progress: progress.New(stderr, o.batch.progress, isTerminal(stderr), njobs)}
	for _, rec := range records {
		col.Emit(rec)
	}
	// A worker hands its finished case over and goes on to the next while
	// the collector waits on the journal's fsync.
	doneCh := make(chan *pipeline.Case, o.workers)
	ranCh := make(chan *pipeline.Case)
	var collectWG sync.WaitGroup
	collectWG.Go(func() { r.intr.relay(ranCh, doneCh) })
	collectWG.Go(func() { col.Run(doneCh) })
	runErr := r.budgets.limit.end(runner.Run(ctx, jobs, ranCh))
	close(ranCh)
	collectWG.Wait()
	if err := r.heapProfile(); err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
	}
	col.Progress.Close()
	sinkErr := errors.Join(sinks.Close(), scores.Close(), col.Err())
	if err := r.conns.close(); err != nil {
		fmt.Fprintf(stderr, "murmur-eval: warning: %s not written whole: %s\n", connectionsLog, errcode.Format(err))
	}
	telemetry.EndRun(runSpan, col.Summary.Count(reports.StatusPassed), col.Summary.Count(reports.StatusFailed), col.Summary.Unscored())
	end := runEnd{opts: o, outAbs: r.outAbs, start: start, wall: time.Since(start), baseline: r.in.baseline, readLimits: r.in.readLim,
		runErr: runErr, prepErr: r.prep.err, sinkErr: sinkErr, traceID: telemetry.TraceID(runSpan), ranDespite: r.in.warn.ranDespite,
		planned: r.in.cases.Len() * o.batch.epochs * len(o.variants.set.Names()), resumed: len(records), earlierWall: earlierWall(r.folder, r.outAbs),
		unfinished: col.Unfinished(), resume: resumeArgs(o, func(p string) string { return p }), cacheStats: r.cacheStats, conns: r.conns,
		limit: r.budgets.limit}
	return end.finish(col, stdout, stderr)
}

// newPacer returns the run's pacer (--pacing): the adaptive one collects
// garbage in the run's quiet moments.
func newPacer(kind string, workers int) pipeline.Pacer {
	if kind == pacingSemaphore {
		return pacing.NewSemaphore(workers)
	}
	return pacing.NewAdaptive(workers, (&quietCollector{}).maybeCollect)
}

// runner is the run's case runner: each case gets a fresh session id and
// folder, linked from cases/ by its case id (runfolder.LinkCase), and a
// span when telemetry is on. A link that cannot be made fails no case: the
// first failure is printed.
func (r preparedRun) runner(tel *telemetry.Telemetry, stderr io.Writer) *pipeline.Runner {
	o := r.o
	var linkWarn sync.Once
	runner := &pipeline.Runner{
		Graph: r.graph, Workers: o.workers, Timeout: o.timeout,
		Retries: o.batch.retries, Backoff: pipeline.ExpBackoff(o.batch.retryBackoff, time.Minute),
		Tracer: tel.Tracer(),
		Pacer:  newPacer(o.pacing, o.workers),
		NewCase: func(j pipeline.Job) *pipeline.Case {
			sid := trace.NewID("ses_")
			dir := filepath.Join(r.outAbs, "sessions", sid)
			if err := runfolder.LinkCase(r.outAbs, j.ID, j.Variant, j.Epoch, j.Attempt, dir); err != nil {
				linkWarn.Do(func() {
					fmt.Fprintf(stderr, "murmur-eval: warning: session folders are not linked by case id in %s/: %v\n", runfolder.CasesDir, err)
				})
			}
			return &pipeline.Case{RunID: r.folder.RunID, ID: j.ID, Input: runfolder.CaseInput(r.in.ds, j), Epoch: j.Epoch, Variant: j.Variant, SessionID: sid,
				SessionDir: dir}
		},
	}
	if !tel.Enabled() {
		runner.Tracer = nil
	}
	return runner
}
