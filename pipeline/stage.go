package pipeline

import "context"

// Stage is one step of a case's execution. Run is called once per case, on
// that case's goroutine, so it may read and write c without locking; a stage
// value itself is shared by every case of a run and must be safe for
// concurrent use (per-run work belongs in a Memo inside the stage).
type Stage interface {
	Name() string
	Run(ctx context.Context, c *Case) error
}

// Decl is everything the graph knows about a stage, declared once by the
// stage's package (`var Decl = pipeline.Decl{...}`), as go/analysis's
// Analyzer carries everything about a pass: its name, the result it
// produces, the stages whose results it reads, whether it runs even when
// one of them failed (Report does, so every case gets a row), whether its
// result is the same for every case, and whether it is the live stage.
type Decl struct {
	// Name is the stage's name in the graph; NewGraph checks that the
	// stage placed under the declaration answers to it.
	Name string
	// Produces is the key of the result the stage stores when it returns
	// nil; nil for a stage that produces none. NewGraph checks that it
	// names the stage, and the executor that a stage that ran stored it.
	Produces Dep
	// Requires are the stages whose results this one reads (ResultOf,
	// Lookup): reading any other stage's result fails the stage, so the
	// table shows the real data dependencies.
	Requires          []string
	RunDespiteFailure bool
	// Shared marks a stage whose work is the same for every case (Resolve,
	// Verify): it memoises its result, and Graph.Prepare runs it once before
	// any case starts, so the work is not charged to the first cases'
	// --timeout. A shared stage may require only shared stages. Its result
	// is the run's: a Closer is closed by Graph.Close, after the run's
	// cases, not by each case (closer.go).
	Shared bool
	// Live marks the stage in which a case runs its session against its
	// model (Loop). The runner lets at most Workers cases be in it at
	// once; the run's Pacer (pacer.go, package pacing) decides when its
	// cases start, prepare ahead of it and finish after it. At most one
	// node is live, and it is not shared.
	Live bool
}

// Node places a Stage in the graph under its declaration. A node with no
// Decl.Name takes its stage's name (a test's table of fakes).
type Node struct {
	Decl
	Stage Stage
}
