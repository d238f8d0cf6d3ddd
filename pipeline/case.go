package pipeline

import "time"

// Case is the state of one case (one epoch of one dataset line) as it moves
// through the stages. The executor runs a case's stages on one goroutine, so
// a Case needs no locks; what several cases share (a shared stage's result)
// is read-only once made.
//
// The stages' results are not fields: each stage stores its own under its
// Key (Store) and reads those of the stages it requires (ResultOf), so this
// package knows none of their types.
type Case struct {
	RunID string
	// ID is the dataset line's case_id; Input is the line itself, which
	// the stages read as their dataset's type (InputOf).
	ID    string
	Input any
	Epoch int // 1-based
	// Variant is the run's variant the case runs (Job.Variant); "" in a
	// run without variants.
	Variant    string
	Attempt    int       // 1-based; a case that ended in error may be retried (Runner.Retries)
	SessionID  string    // ses_<uuidv7 hex>, murmur's form
	SessionDir string    // absolute path of the case's session directory
	StartedAt  time.Time // when the case's first stage started

	// Earlier holds the attempts before this one, oldest first: each ended
	// in status error and was retried. Set by the runner on the final
	// attempt only; their rows are kept, but only this attempt is scored.
	Earlier []*Case

	// Stages holds the executor's record of each stage, in execution order.
	Stages []StageResult
	// EndCause is why the case's context ended early (ErrCaseTimeout,
	// ErrInterrupted), nil when it did not. Set by the executor.
	EndCause error

	// results holds each stage's result by stage name (result.go), and
	// stored their names in the order they were first stored.
	results map[string]any
	stored  []string
	// running is the stage the executor is running, and requires its
	// requirements: the results it may read. violation is the first
	// breach of those rules, which fails the running stage.
	running   string
	requires  []string
	violation error

	// verdict is the case's verdict, judged once when its last stage has
	// run (settle); nil while it runs.
	verdict *Verdict

	// observed holds the results already handed a tracer (observe.go).
	observed map[string]bool

	// timeout is the case's --timeout (0: none) and spent what its stages
	// have used of it: the waits for its turn (pace) are not counted.
	timeout, spent time.Duration
	// pace is the case's place in the runner's pacer; nil when the run
	// has none or the case runs outside a runner.
	pace Seat
}

// InputOf returns the case's dataset line as T, or E-EVL-099 when the case
// carries another type. A case whose line could not be read when it
// started (Runner.NewCase) carries that error as its Input: InputOf
// returns it, and the stage that asked fails with its code. The error is
// looked for first: a T that an error satisfies (any, error) would
// otherwise take it as the line.
func InputOf[T any](c *Case) (T, error) {
	var zero T
	switch v := c.Input.(type) {
	case error:
		return zero, v
	case T:
		return v, nil
	}
	return zero, errInput(c)
}

// Stage returns the record of the named stage, if it has run or been skipped.
func (c *Case) Stage(name string) (StageResult, bool) {
	for _, r := range c.Stages {
		if r.Stage == name {
			return r, true
		}
	}
	return StageResult{}, false
}

// Verdict is the case's verdict, judged once by the executor after its
// last stage and carried from then on (the runner, the rows, the journal,
// the summary and the span all read this one). A case that has not
// finished (a stage asking mid-run, a case built by hand in a test) is
// judged on what it holds now, and nothing is kept.
func (c *Case) Verdict() Verdict {
	if c.verdict != nil {
		return *c.verdict
	}
	return Judge(c)
}

// settle judges the finished case once. The runner settles it again when
// it changes EndCause afterwards (cutShort).
func (c *Case) settle() {
	v := Judge(c)
	c.verdict = &v
}
