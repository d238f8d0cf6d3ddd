package pipeline

import (
	"context"
	"sync"
)

// Memo holds the result of work that is the same for every case of a run
// (loading the manifest, hashing artifacts, compiling WASM), so the first
// case does it and the others share it. It is safe for concurrent use:
// callers that arrive while the work runs wait for it.
//
// A failure caused by the caller's own context ending (that case timed out
// or was cancelled) is not kept: the next case tries again, so one case's
// timeout does not fail the whole run. Any other failure is kept and
// returned to every case, which is what "a mismatch fails every case" needs.
type Memo[T any] struct {
	mu   sync.Mutex
	done bool
	val  T
	err  error
}

// Get returns the memoised result, computing it with fn on first use.
func (m *Memo[T]) Get(ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done {
		return m.val, m.err
	}
	v, err := fn(ctx)
	if err != nil && ctx.Err() != nil {
		return v, err
	}
	m.val, m.err, m.done = v, err, true
	return v, err
}
