package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/datasets/commands"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/cache"
	"github.com/murmur-nexus/murmur-eval/inference/models"
	"github.com/murmur-nexus/murmur-eval/internal/hugeheap"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// runEval is the run command: parse, validate, run every selected case
// (and epoch) not yet journaled, write the outputs, apply the gates, print
// the summary. Each phase is a function of its own (runphases.go).
func runEval(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) int {
	o, code, ok := parseRunFlags(args, env, stderr)
	if !ok {
		return code
	}
	intr := &interruption{stderr: stderr}
	defer intr.watch(ctx)()
	if o.version {
		fmt.Fprintln(stdout, "murmur-eval", buildVersion())
		return exitOK
	}
	if o.hugePages {
		hugeheap.Advise(hugeheap.Region(o.workers))
	}
	stopProfile, heapProfile, err := o.profile.Start()
	if err != nil {
		return usageError(stderr, err)
	}
	defer stopProfile()
	in, err := loadInputs(o, env, stderr)
	if err != nil {
		return usageError(stderr, err)
	}
	defer in.ds.Close()
	budgets, err := newRunBudgets(o, env)
	if err != nil {
		return usageError(stderr, err)
	}
	if in.commands {
		intr.runsChecks(o.checkTimeout)
	}
	// The run's context: an interrupt, a failed sink or an unreachable
	// model endpoint stops it with its cause.
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	conns := &connectionLog{}
	mods, err := models.New(models.Flags{Replay: o.replay, Record: o.record, Cache: o.modelCache, MaxConnections: o.maxConns, Workers: o.workers,
		OnUnreachable: stopRun, Judge: in.judged, FixedConnections: o.conns == connectionsFixed, OnConnections: conns.record}, env)
	if err != nil {
		return usageError(stderr, err)
	}
	conns.ranges = mods.Connections
	defer mods.Close()
	if in.judged {
		in.plan.Judge = o.judge.judge(budgets.limit.judgeSource(mods.Judge, o.judge.model, budgets.prices))
	}
	folder, err := openRunFolder(&o)
	if err != nil {
		return usageError(stderr, err)
	}
	defer folder.Unlock()
	outAbs, err := filepath.Abs(o.out)
	if err != nil {
		return usageError(stderr, errcode.Wrap(errcode.IO, err, "--out %s", o.out))
	}
	if in.commands {
		if err := commands.Reachable(outAbs); err != nil {
			if folder.Prev == nil {
				runfolder.Clear(o.out) // nothing ran: the same --out can be used again
			}
			return usageError(stderr, err)
		}
	}
	if o.driver == driverBuiltin {
		fmt.Fprintln(stderr, "murmur-eval: --driver builtin: the built-in provider answers the model turns; an installed driver component is verified but not run")
	}
	st, err := wiring{capsuleDir: o.capsuleDir, outDir: outAbs, cacheDir: cacheDir(o.cacheDir, env), builtinDriver: o.driver == driverBuiltin, env: env, source: mods.Source, guests: mods.Guests, plan: in.plan,
		workdirMaxFiles: uint64(o.workdirMaxFiles), caseBudget: budgets.loop, variants: o.variants.set}.stages()
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	defer st.close()
	prep, code, ok := prepare(ctx, st, o, folder, in.warn, stderr)
	if !ok {
		return code
	}
	warnUnpriced(stderr, o.prices.table, pricedModels(o, env))
	r := preparedRun{o: o, env: env, in: in, folder: folder, outAbs: outAbs, graph: st.graph, prep: prep,
		stopRun: stopRun, heapProfile: heapProfile, intr: intr, cacheStats: mods.CacheStats, conns: conns, budgets: budgets}
	return r.run(ctx, stdout, stderr)
}

// runEnd is what is known when the last case has finished.
type runEnd struct {
	opts     options
	outAbs   string
	start    time.Time
	wall     time.Duration
	baseline *reports.RunData
	// readLimits bound reading the run's own results back for --baseline.
	readLimits reports.ReadLimits
	runErr     error // the run was interrupted
	prepErr    error // the capsule was refused
	sinkErr    error // a Parquet file could not be written
	traceID    string
	// ranDespite are the codes of the refusals --run-anyway let through.
	ranDespite []string
	// planned is the (case, epoch) pairs of the whole run; resumed how
	// many came from the journal of an earlier invocation, which ran for
	// earlierWall.
	planned     int
	resumed     int
	earlierWall time.Duration
	// unfinished is how many of the cases that ran did not get their
	// final verdict (collect.Collector.Unfinished); resume the command
	// line that runs them and the rest (resumeArgs).
	unfinished int
	resume     []string
	// cacheStats are the model-turn cache's counts (--cache).
	cacheStats func() cache.Stats
	// conns are the model endpoints' requests in flight (connlog.go).
	conns *connectionLog
	// limit is --max-cost's (nil: none); runErr is errBudgetStopped when
	// it stopped the run.
	limit *costLimit
}

// finish compares with the baseline, applies the gates, writes the report
// files, prints the summary and returns the exit code (exitcodes.go).
func (e runEnd) finish(col *collect.Collector, stdout, stderr io.Writer) int {
	d := col.Summary.Digest(e.wall + e.earlierWall)
	d.TraceID = e.traceID
	d.RanDespite = e.ranDespite
	if e.runErr != nil {
		d.ResumeCommand = shellLine(resumeArgs(e.opts, absPath))
	}
	d.Version = buildVersion()
	e.setCache(&d)
	e.opts.prices.setCost(&d, col.Summary)
	d.Connections = e.conns.digest()
	d.Planned, d.Ran, d.Resumed = e.planned, d.Cases-d.Statuses[reports.StatusCancelled], e.resumed
	d.Complete = d.Ran >= d.Planned && e.runErr == nil
	switch {
	case errcode.Is(e.runErr, errcode.EndpointUnreachable):
		d.Stopped = reports.StoppedEndpoint
	case errors.Is(e.runErr, errBudgetStopped):
		d.Stopped = reports.StoppedBudget
	case e.runErr != nil:
		d.Stopped = reports.StoppedInterrupted
	case e.sinkErr != nil:
		d.Stopped, d.Complete = reports.StoppedFailed, false
	}
	completed := e.runErr == nil && e.prepErr == nil && e.sinkErr == nil
	end := collect.Ending{Dir: e.outAbs, Out: e.opts.out, Baseline: e.baseline, Limits: e.readLimits, Gates: e.opts.gates, Started: e.start}
	diff, v, err := end.Finish(&d, col.JUnit, completed)
	if err != nil {
		e.sinkErr = errors.Join(e.sinkErr, err)
	}
	if diff != nil {
		if err := diff.WriteText(stdout); err != nil {
			e.sinkErr = errors.Join(e.sinkErr, err)
		}
		fmt.Fprintln(stdout)
	}
	out := e.opts.out
	files := []reports.OutputFile{
		{Label: "results", Path: filepath.Join(out, reports.ResultsFile)},
		{Label: "scores", Path: filepath.Join(out, reports.ScoresFile)},
		{Label: "events", Path: filepath.Join(out, reports.EventsFile)},
		{Label: "summary", Path: filepath.Join(out, collect.SummaryMDFile)},
		{Label: "junit", Path: filepath.Join(out, collect.JUnitFile)},
	}
	if err := d.WriteText(stdout, files); err != nil {
		e.sinkErr = errors.Join(e.sinkErr, err)
	}
	if e.opts.murmurDifferences {
		if err := d.WriteMurmurDifferences(stdout); err != nil {
			e.sinkErr = errors.Join(e.sinkErr, err)
		}
	}
	switch {
	case e.sinkErr != nil: // first: a failed sink also stops the run
		fmt.Fprintln(stderr, errcode.Format(e.sinkErr))
		return exitFailure
	case errcode.Is(e.runErr, errcode.EndpointUnreachable):
		fmt.Fprintln(stderr, errcode.Format(e.runErr))
		fmt.Fprintf(stderr, "murmur-eval: stopped starting cases: %s; their rows are written\n", stoppedLine(d.Planned, d.Cases, e.unfinished))
		fmt.Fprintf(stderr, "murmur-eval: once the endpoint answers, run the rest with: %s\n", shellLine(e.resume))
		return exitErrorBudget
	case errors.Is(e.runErr, errBudgetStopped):
		fmt.Fprint(stderr, stoppedByBudgetLines(e.limit, d.Planned, d.Cases, e.unfinished, e.resume))
		return exitBudgetStopped
	case e.runErr != nil:
		fmt.Fprintf(stderr, "murmur-eval: %v: %s; their rows are written\n", e.runErr, stoppedLine(d.Planned, d.Cases, e.unfinished))
		fmt.Fprintf(stderr, "murmur-eval: run the rest with: %s\n", shellLine(e.resume))
		return exitInterrupted
	case e.prepErr != nil:
		return exitUsage
	}
	return gateExit(v, &d, e.opts.gates, stderr)
}

// setCache completes summary.json's cache block under --cache: the folder,
// and what this invocation found invalid or could not store there (the
// hits and misses are the rows').
func (e runEnd) setCache(d *reports.Digest) {
	if e.opts.modelCache == "" || e.cacheStats == nil {
		return
	}
	st := e.cacheStats()
	if d.Cache == nil {
		d.Cache = &reports.CacheDigest{}
	}
	d.Cache.Dir, d.Cache.Corrupt, d.Cache.Unwritten = e.opts.modelCache, st.Corrupt, st.Unwritten
}

// cacheDir resolves --cache-dir: "off" disables the cache; empty means the
// user's cache folder.
func cacheDir(flag string, env map[string]string) string {
	switch flag {
	case "off":
		return ""
	case "":
		if d := env["XDG_CACHE_HOME"]; d != "" {
			return filepath.Join(d, "murmur-eval")
		}
		if h := env["HOME"]; h != "" {
			return filepath.Join(h, ".cache", "murmur-eval")
		}
		return ""
	}
	return flag
}
