package stages

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets/commands"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/tokens"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/report"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
	"github.com/murmur-nexus/murmur-eval/variant"
)

// Options are what a run's stage table is built from.
type Options struct {
	// CapsuleDir is the capsule project folder.
	CapsuleDir string
	// RunDir is the run folder (absolute): the launchers' copies and the
	// staged tool files (.staged) go there.
	RunDir string
	// CacheDir is wazero's compilation cache across runs; "" for none.
	CacheDir string
	// BuiltinDriver is --driver builtin (verify.Options.BuiltinDriver).
	BuiltinDriver bool
	// Env is the evaluator's environment: Resolve's ${VAR} and HOME, a
	// process CLI's environment, Contain's host environment; nil for none.
	Env map[string]string
	// Models serves each case's model.
	Models inference.Source
	// Now is the traces' clock; nil for time.Now.
	Now func() time.Time
	// HTTP is every component guest's wasi:http client; nil gives each
	// call a client of its own.
	HTTP *http.Client
	// Version is the murmur-eval version MURMUR.md names; "" for "dev".
	Version string
	// Plan is the run's scoring plan; nil for the default.
	Plan *scoring.Plan
	// Staging are the Stage stage's workspace and setup settings; New
	// sets its Commands (the run's launcher) and StagedDir.
	Staging staging.Options
	// CaseBudget ends a case's loop when reached (--case-max-tokens,
	// --case-max-cost); the zero value has no limit.
	CaseBudget loop.Budget
	// Variants are the run's variants (--models, --variants): Resolve
	// gives a case of one the manifest with its inference block.
	Variants variant.Set
}

// Table is a run's stage graph and what the run owns for it.
type Table struct {
	Graph *pipeline.Graph
	// Verify is the table's Verify stage, whose security warnings and
	// artifact manifests' unknown keys the run prints once Graph.Prepare
	// succeeded.
	Verify *verify.Stage
	// Runtime holds the engine and the capsule's Spawner, and Commands
	// the dataset commands' launcher: the run's, closed by Close.
	Runtime  *Runtime
	Commands *commands.Launcher
	tokens   *tokens.Counter
}

// New builds the run's stage table: the seven stages under their
// packages' declarations, Report's requires from what the table wires it
// to read, and the run-wide resources injected. Close it after the run's
// last case, also when New fails.
func New(o Options) (*Table, error) {
	lookup := func(k string) (string, bool) { v, ok := o.Env[k]; return v, ok }
	now := o.Now
	if now == nil {
		now = time.Now
	}
	t := &Table{Runtime: NewRuntime(), Commands: commands.NewLauncher(o.RunDir), tokens: &tokens.Counter{}}
	t.Verify = verify.New(verify.Options{RunDir: o.RunDir, CacheDir: o.CacheDir, BuiltinDriver: o.BuiltinDriver, Runtime: t.Runtime})
	stageOpts := o.Staging
	stageOpts.Commands = t.Commands // setup commands share the checks' launcher
	if o.RunDir != "" {
		stageOpts.StagedDir = filepath.Join(o.RunDir, ".staged")
	}
	ln := launch.New(o.Models, now).WithHostEnv(o.Env).WithHTTP(o.HTTP)
	if o.Version != "" {
		ln = ln.WithVersion(o.Version)
	}
	reads := reportReads()
	rep := report.Decl
	rep.Requires = reads.Requires
	g, err := pipeline.NewGraph(
		pipeline.Node{Decl: resolve.Decl, Stage: resolve.New(resolve.Options{Dir: o.CapsuleDir, LookupEnv: lookup, Home: o.Env["HOME"], Platform: capsule.CurrentPlatform(), Variants: o.Variants})},
		pipeline.Node{Decl: verify.Decl, Stage: t.Verify},
		pipeline.Node{Decl: staging.Decl, Stage: staging.NewWith(stageOpts)},
		pipeline.Node{Decl: contain.Decl, Stage: contain.New(o.Env)},
		pipeline.Node{Decl: launch.Decl, Stage: ln},
		pipeline.Node{Decl: loop.Decl, Stage: loop.Stage{Tokens: t.tokens, Budget: o.CaseBudget}},
		pipeline.Node{Decl: rep, Stage: report.New(report.Options{Reads: reads, Commands: t.Commands, Plan: o.Plan})},
	)
	t.Graph = g
	return t, err
}

// reportReads wires what Report reads: the session Launch opened, the
// loop's outcome, the workspace Stage cloned, and the sandbox its check
// commands run in (Verify's host and Spawner, Contain's resources and
// layer).
func reportReads() report.Reads {
	return report.Reads{
		Session: launch.Result,
		Outcome: loop.Result,
		Workspace: func(c *pipeline.Case) report.Workspace {
			st, _ := pipeline.Lookup(c, staging.Result)
			if st == nil || st.Workspace == nil || st.Workspace.Base == nil {
				return nil // no typed nil in the interface
			}
			return st.Workspace
		},
		Sandbox: func(c *pipeline.Case) (report.CheckSandbox, error) {
			ts, _ := pipeline.Lookup(c, verify.Result)
			pol, _ := pipeline.Lookup(c, contain.Result)
			if ts == nil || pol == nil {
				return report.CheckSandbox{}, errcode.New(errcode.Internal, "check: the case has no toolset or policy")
			}
			return report.CheckSandbox{Host: commands.Host{Probe: ts.Host, Spawner: ts.Spawner}, Resources: pol.Resources, Layer: pol.Layer}, nil
		},
		Requires: []string{verify.Name, staging.Name, contain.Name, launch.Name, loop.Name},
	}
}

// Warm does run-wide work no stage memoises (the token ranks' decode),
// beside Graph.Prepare. A failure is met again, and handled, by the first
// count.
func (t *Table) Warm() { _ = t.tokens.Load() }

// Close closes what the run owns, after its last case: the shared stages'
// results that hold something open (Graph.Close), the dataset commands'
// launcher, then the engine and the Spawner.
func (t *Table) Close() error {
	var errs []error
	if t.Graph != nil {
		errs = append(errs, t.Graph.Close())
	}
	errs = append(errs, t.Commands.Close(), t.Runtime.Close(context.Background()))
	return errors.Join(errs...)
}
