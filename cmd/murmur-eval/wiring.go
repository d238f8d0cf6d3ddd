package main

import (
	"context"
	"net/http"
	"path/filepath"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/tokens"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/datasetcmd"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/report"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// wiring is what the stage table is built from.
type wiring struct {
	capsuleDir string
	outDir     string
	cacheDir   string
	// builtinDriver: --driver builtin (the installed driver component is
	// not compiled; the built-in provider answers).
	builtinDriver bool
	env           map[string]string
	source        inference.Source
	guests        *http.Client  // every component guest's wasi:http
	plan          *scoring.Plan // the run's scoring plan, for Report
	// workdirMaxFiles is --workdir-max-files (0: no bound).
	workdirMaxFiles uint64
}

// runStages is the run's stage graph, its Verify stage, whose security
// warnings and artifact manifests' unknown keys are read once
// Graph.Prepare succeeded, and close, which releases what the stages hold
// (the WASM engine, the launchers).
type runStages struct {
	graph    *pipeline.Graph
	verifier *verify.Stage
	close    func()
	// warm does run-wide work no stage memoises (the token ranks' decode),
	// beside Graph.Prepare.
	warm func()
}

// stages builds the run's stage table: the seven stages, the result each
// produces, the stages whose results each reads (its package's Requires:
// the real data edges), and Report running despite failures.
func (w wiring) stages() (runStages, error) {
	lookup := func(k string) (string, bool) { v, ok := w.env[k]; return v, ok }
	cmds := datasetcmd.NewLauncher(w.outDir) // checks and setup commands share one launcher copy
	rep := report.NewWith(cmds)
	stageOpts, err := w.stagingOptions(cmds)
	if err != nil {
		return runStages{}, err
	}
	stageOpts.StagedDir = filepath.Join(w.outDir, ".staged")
	counter := &tokens.Counter{}
	ver := verify.New(verify.Options{RunDir: w.outDir, CacheDir: w.cacheDir, BuiltinDriver: w.builtinDriver})
	g, err := pipeline.NewGraph(
		pipeline.Node{Stage: resolve.New(resolve.Options{Dir: w.capsuleDir, LookupEnv: lookup, Home: w.env["HOME"], Platform: capsule.CurrentPlatform()}),
			Produces: resolve.Result, Shared: true},
		pipeline.Node{Stage: ver, Produces: verify.Result, Requires: verify.Requires(), Shared: true},
		pipeline.Node{Stage: staging.NewWith(stageOpts), Produces: staging.Result, Requires: staging.Requires()},
		pipeline.Node{Stage: contain.New(w.env), Produces: contain.Result, Requires: contain.Requires()},
		pipeline.Node{Stage: launch.New(w.source, time.Now).WithHostEnv(w.env).WithHTTP(w.guests).WithVersion(buildVersion()), Produces: launch.Result, Requires: launch.Requires()},
		pipeline.Node{Stage: loop.Stage{Tokens: counter}, Produces: loop.Result, Requires: loop.Requires(), Live: true},
		pipeline.Node{Stage: rep.WithPlan(w.plan), Produces: report.Result, Requires: report.Requires(), RunDespiteFailure: true},
	)
	st := runStages{graph: g, verifier: ver, close: func() {
		_ = ver.Close(context.Background())
		_ = rep.Close()
		_ = stageOpts.Workspaces.Close() // overlays released, kept sessions completed
	}, warm: func() { _ = counter.Load() }} // an error is met again, and handled, by the first count
	if err == nil {
		err = reports.CheckStageColumns(g.Names()) // a stage without its <stage>_ms column is a bug
	}
	return st, err
}
