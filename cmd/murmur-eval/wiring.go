package main

import (
	"net/http"
	"time"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/stages"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
	"github.com/murmur-nexus/murmur-eval/variant"
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
	// caseBudget is the Loop stage's budget (budgetflags.go).
	caseBudget loop.Budget
	// variants are the run's variants (--models, --variants).
	variants variant.Set
}

// runStages is the run's stage graph, its Verify stage, whose security
// warnings and artifact manifests' unknown keys are read once
// Graph.Prepare succeeded, and close, which releases what the run owns
// (the shared results, the launchers, the WASM engine, the workspaces).
type runStages struct {
	graph    *pipeline.Graph
	verifier *verify.Stage
	close    func()
	// warm does run-wide work no stage memoises (the token ranks' decode),
	// beside Graph.Prepare.
	warm func()
}

// stages builds the run's stage table (package stages: the one table, as
// the tests build it too) from the run's settings, and checks that every
// stage has its <stage>_ms column.
func (w wiring) stages() (runStages, error) {
	stageOpts, err := w.stagingOptions()
	if err != nil {
		return runStages{}, err
	}
	t, err := stages.New(stages.Options{
		CapsuleDir: w.capsuleDir, RunDir: w.outDir, CacheDir: w.cacheDir, BuiltinDriver: w.builtinDriver,
		Env: w.env, Models: w.source, Now: time.Now, HTTP: w.guests, Version: buildVersion(), Plan: w.plan,
		Staging: stageOpts, CaseBudget: w.caseBudget, Variants: w.variants,
	})
	st := runStages{graph: t.Graph, verifier: t.Verify, close: func() {
		_ = t.Close()
		_ = stageOpts.Workspaces.Close() // overlays released, kept sessions completed
	}, warm: t.Warm}
	if err == nil {
		err = reports.CheckStageColumns(t.Graph.Names()) // a stage without its <stage>_ms column is a bug
	}
	return st, err
}
