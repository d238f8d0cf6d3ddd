package pipeline

import (
	"context"
	"errors"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Status is a finished case's verdict, as it appears in results.parquet.
type Status string

// The statuses. passed and failed are verdicts on the model: the case ran to
// the end and was scored. error, timeout and cancelled say the case got no
// verdict: the harness, the sandbox, the provider or the clock stopped it.
// Pass rates never count them as the model's failures.
const (
	StatusPassed    Status = "passed"    // scored, and every scorer passed
	StatusFailed    Status = "failed"    // scored, and a scorer failed: the model's fault
	StatusError     Status = "error"     // a stage failed; Verdict.Code and Stage say which
	StatusTimeout   Status = "timeout"   // the case ran out of its --timeout
	StatusCancelled Status = "cancelled" // the run was interrupted while the case ran
	StatusSkipped   Status = "skipped"   // reserved: the case was not run (filtered, sharded out)
	// StatusOverBudget: the case's loop reached its --case-max-tokens or
	// --case-max-cost and was ended there: a harness limit, unscored like
	// a timeout, never retried.
	StatusOverBudget Status = "over_budget"
)

// OverBudgeter is a stage result that can say a per-case budget ended the
// case (the loop's Outcome): Judge gives such a case over_budget, whatever
// a grader says, when no stage failed.
type OverBudgeter interface {
	OverBudget() bool
}

// Errors that end a case from outside: the context causes the runner sets.
var (
	// ErrCaseTimeout is the cause of a case context that ran out of --timeout.
	ErrCaseTimeout = errcode.New(errcode.Timeout, "case ran out of its --timeout")
	// ErrInterrupted is the cause of a run context cancelled by an interrupt.
	ErrInterrupted = errcode.New(errcode.Cancelled, "run interrupted")
)

// Verdict is the status of a finished case and, when it did not pass or fail
// on its own merits, the stage and error that decided it.
type Verdict struct {
	Status Status
	Stage  string // the first failed stage, "" when none failed
	Code   string // stable error code, "" when none failed
	Err    error
}

// Judge derives a case's verdict from its stage results and its scores. The
// first failed stage decides. When it failed because the case's context
// ended, c.EndCause tells why: out of --timeout is a timeout, an interrupted
// run is cancelled. Anything else is an error with the stage's code
// (E-EVL-099 when the error carries none). With no failed stage, the
// latest stored result that grades the model decides (Grader): Report's
// scores when it scored the case, else the Loop's exit status, which is
// what the default exit_ok scorer would say; a case whose loop a per-case
// budget ended (OverBudgeter) is over_budget first. A case nothing graded
// failed.
func Judge(c *Case) Verdict {
	for _, r := range c.Stages {
		if r.Outcome != Failed {
			continue
		}
		v := Verdict{Status: StatusError, Stage: r.Stage, Err: r.Err, Code: errcode.Code(r.Err)}
		if isContextEnd(r.Err) && c.EndCause != nil {
			v.Status, v.Code = StatusCancelled, errcode.Cancelled
			if errors.Is(c.EndCause, ErrCaseTimeout) {
				v.Status, v.Code = StatusTimeout, errcode.Timeout
			}
			v.Err = c.EndCause
			return v
		}
		if v.Code == "" {
			v.Code = errcode.Internal
		}
		return v
	}
	for _, k := range c.stored {
		if ob, ok := c.results[k].(OverBudgeter); ok && ob.OverBudget() {
			return Verdict{Status: StatusOverBudget}
		}
	}
	for i := len(c.stored) - 1; i >= 0; i-- {
		g, ok := c.results[c.stored[i]].(Grader)
		if !ok {
			continue
		}
		if passed, decided := g.Grade(); decided {
			if passed {
				return Verdict{Status: StatusPassed}
			}
			return Verdict{Status: StatusFailed}
		}
	}
	return Verdict{Status: StatusFailed}
}

func isContextEnd(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, ErrCaseTimeout) || errors.Is(err, ErrInterrupted)
}
