package pipeline

import "context"

// Turn is what a case waits for its turn to do, around the graph's live
// stage (Node.Live).
type Turn int

const (
	// TurnStart is taking the next job: starting a case.
	TurnStart Turn = iota
	// TurnPrepare is running a stage before the live one.
	TurnPrepare
	// TurnLive is the live stage: a slot, of which there are Workers.
	TurnLive
	// TurnFinish is running a stage after the live one.
	TurnFinish
)

// Pacer decides when a run's cases do their work around the graph's live
// stage. The runner runs Workers workers, each with a Seat, and as many
// again once Ahead is closed; a pacer is made for one run, with Workers
// slots (package pacing has the implementations). Seat and Ahead are
// called by the runner's goroutine.
type Pacer interface {
	// Seat returns the place of a new worker.
	Seat() Seat
	// Ahead returns a channel that is closed when the runner should start
	// Workers more workers, which prepare cases ahead of the slots; nil
	// for never.
	Ahead() <-chan struct{}
}

// Seat is one worker's place in a Pacer. Await and Release are called by
// the worker's goroutine, for the case it runs; Waiting by any goroutine,
// more than once (the Loop's HTTP client trace).
type Seat interface {
	// Await waits until the worker may do t, and reports whether it
	// waited. It returns at once when ctx ends: for TurnLive without the
	// slot (the stage then fails with the context's cause).
	Await(ctx context.Context, t Turn) (waited bool)
	// Release tells the pacer the worker is done with a turn:
	// Release(TurnLive) after the live stage (its slot is free),
	// Release(TurnFinish) after each attempt of a case (anything the
	// attempt still holds is given back, whether or not it got that far),
	// Release(TurnStart) after the case's last attempt, or when the worker
	// found no job to start.
	Release(t Turn)
	// Waiting marks the live case as waiting for an answer from outside
	// the process (on) or working again (off); a pacer may run other
	// cases' work meanwhile, or ignore it.
	Waiting(on bool)
}

// seatKey is the context key of the case's Seat.
type seatKey struct{}

// Wait marks a live case as waiting for an answer from outside the process
// (its model), during which the pacer may run other cases' work. The Loop
// stage calls Begin when a request has left (an HTTP request written) and
// End when the answer comes (its first byte) and when the call returns.
// Both may be called from any goroutine, more than once; the zero Wait (no
// pacer: a graph with no live stage, a test) does nothing. It is all the
// Loop knows of pacing.
type Wait struct{ s Seat }

// WaitOf returns the Wait of the case running in ctx.
func WaitOf(ctx context.Context) Wait {
	s, _ := ctx.Value(seatKey{}).(Seat)
	return Wait{s: s}
}

// Begin marks the case as waiting.
func (w Wait) Begin() {
	if w.s != nil {
		w.s.Waiting(true)
	}
}

// End marks the case as working again.
func (w Wait) End() {
	if w.s != nil {
		w.s.Waiting(false)
	}
}
