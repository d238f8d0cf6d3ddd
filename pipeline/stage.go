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

// Node places a Stage in the graph: what it produces, the stages whose
// results it reads, whether it runs even when one of them failed (Report
// does, so every case gets a row), and whether its result is the same for
// every case.
type Node struct {
	Stage Stage
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
	// --timeout. A shared stage may require only shared stages.
	Shared bool
	// Live marks the stage in which a case runs its session against its
	// model (Loop). The runner lets at most Workers cases be in it at
	// once; it starts and prepares the next cases ahead of it, and
	// finishes cases after it, in the run's quiet moments (pacer.go). At
	// most one node is live, and it is not shared.
	Live bool
}
