package pacing

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// Semaphore is the plain pacer: at most as many cases in the live stage at
// once as it has slots, and nothing else. Every other turn passes at once,
// and no worker is started ahead, so the runner's Workers workers run one
// case each, its stages straight through.
type Semaphore struct {
	slots chan struct{}
}

// NewSemaphore returns a Semaphore of n slots (at least 1).
func NewSemaphore(n int) *Semaphore {
	return &Semaphore{slots: make(chan struct{}, max(1, n))}
}

// Seat returns a new worker's place.
func (s *Semaphore) Seat() pipeline.Seat { return &semSeat{sem: s} }

// Ahead returns nil: no worker is started ahead.
func (*Semaphore) Ahead() <-chan struct{} { return nil }

// semSeat is one worker's place in a Semaphore.
type semSeat struct {
	sem  *Semaphore
	live bool // the worker holds a slot
}

// Await takes a slot for TurnLive; the other turns pass.
func (s *semSeat) Await(ctx context.Context, t pipeline.Turn) bool {
	if t != pipeline.TurnLive || s.live {
		return false
	}
	select {
	case s.sem.slots <- struct{}{}:
		s.live = true
		return false
	default:
	}
	select {
	case s.sem.slots <- struct{}{}:
		s.live = true
	case <-ctx.Done():
	}
	return true
}

// Release gives the slot back after the live stage, or after an attempt
// that still holds it.
func (s *semSeat) Release(t pipeline.Turn) {
	if (t == pipeline.TurnLive || t == pipeline.TurnFinish) && s.live {
		s.live = false
		<-s.sem.slots
	}
}

// Waiting does nothing: a semaphore does not look at waits.
func (*semSeat) Waiting(bool) {}
