package pipeline

import (
	"context"
	"errors"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Status is a finished case's verdict, as it appears in results.parquet.
type Status string

// The statuses. Until scorers exist, a session that ended ok passed, one that
// ended failed or max_turns_reached failed (the model's fault), and error,
// timeout and cancelled are the harness's or the environment's.
const (
	StatusPassed    Status = "passed"
	StatusFailed    Status = "failed"
	StatusError     Status = "error"
	StatusTimeout   Status = "timeout"
	StatusCancelled Status = "cancelled"
)

// Session exit statuses, as murmur writes them in session_end.
const (
	ExitOK              = "ok"
	ExitFailed          = "failed"
	ExitMaxTurnsReached = "max_turns_reached"
)

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

// Judge derives a case's verdict from its stage results and the session's
// exit status. The first failed stage decides. When it failed because the
// case's context ended, c.EndCause tells why: out of --timeout is a timeout,
// an interrupted run is cancelled. Anything else is an error with the stage's
// code (E-EVL-099 when the error carries none).
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
	if c.ExitStatus() == ExitOK {
		return Verdict{Status: StatusPassed}
	}
	return Verdict{Status: StatusFailed}
}

func isContextEnd(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, ErrCaseTimeout) || errors.Is(err, ErrInterrupted)
}
