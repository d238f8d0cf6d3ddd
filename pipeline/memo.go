package pipeline

import (
	"context"
	"sync"
)

// Memo holds the result of work that is the same for every case of a run
// (loading the manifest, hashing artifacts, compiling WASM), so the first
// case does it and the others share it. It is safe for concurrent use.
//
// No lock is held while the work runs: the first caller runs it, callers
// that arrive meanwhile wait for it or for their own context, whichever
// ends first (a waiting case that times out stops waiting at once).
//
// A failure caused by the working caller's own context ending (that case
// timed out or was cancelled) is not kept: a waiter, or the next case,
// tries again, so one case's timeout does not fail the whole run. Any other
// failure is kept and returned to every case, which is what "a mismatch
// fails every case" needs. A panic in the work is not kept either: the
// panic goes on in the working caller, and waiters try again.
type Memo[T any] struct {
	mu   sync.Mutex
	call *memoCall[T] // the work in flight or kept; nil before and after a discarded try
}

// memoCall is one try of the work; done is closed when it ends.
type memoCall[T any] struct {
	done chan struct{}
	kept bool // written before done is closed
	val  T
	err  error
}

// Get returns the memoised result, computing it with fn on first use. A
// caller whose context ends while another runs fn returns its context's
// cause and the zero value.
func (m *Memo[T]) Get(ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	for {
		m.mu.Lock()
		c := m.call
		if c == nil {
			c = &memoCall[T]{done: make(chan struct{})}
			m.call = c
			m.mu.Unlock()
			return m.work(ctx, c, fn)
		}
		m.mu.Unlock()
		select {
		case <-c.done:
			if c.kept {
				return c.val, c.err
			}
			// That try was discarded: try again, perhaps as the worker.
		case <-ctx.Done():
			var zero T
			return zero, context.Cause(ctx)
		}
	}
}

// work runs fn as c's worker and publishes its outcome.
func (m *Memo[T]) work(ctx context.Context, c *memoCall[T], fn func(context.Context) (T, error)) (v T, err error) {
	finished := false
	defer func() {
		if !finished || !c.kept { // a panic, or a failure of the worker's own context
			m.mu.Lock()
			m.call = nil
			m.mu.Unlock()
		}
		close(c.done)
	}()
	v, err = fn(ctx)
	finished = true
	if err != nil && ctx.Err() != nil {
		return v, err
	}
	c.val, c.err, c.kept = v, err, true
	return v, err
}

// Stored returns the kept result without computing anything: ok is false
// before the work has succeeded or failed for good (never run, running, or
// only discarded tries). Readers that must not start the work (warnings,
// Close) use it.
func (m *Memo[T]) Stored() (val T, ok bool, err error) {
	m.mu.Lock()
	c := m.call
	m.mu.Unlock()
	if c == nil {
		return val, false, nil
	}
	select {
	case <-c.done:
		if c.kept {
			return c.val, true, c.err
		}
	default:
	}
	return val, false, nil
}
