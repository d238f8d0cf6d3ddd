package sandbox

import (
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// boundedAllocator backs the linear memory of one instance and refuses growth
// past limit, recording the size the guest asked for. memory.grow then
// returns -1 to the guest, as it would at wazero's own page limit, but Run
// knows the limit was the reason and can report ErrMemory the way murmur's
// store limiter does. One allocator serves exactly one call.
type boundedAllocator struct {
	limit   uint64
	refused atomic.Uint64 // largest refused size in bytes; 0 = none
}

// Allocate implements experimental.MemoryAllocator.
func (a *boundedAllocator) Allocate(capacity, maxBytes uint64) experimental.LinearMemory {
	return &boundedMemory{owner: a, capHint: capacity, max: maxBytes}
}

func (a *boundedAllocator) refuse(size uint64) {
	for {
		old := a.refused.Load()
		if size <= old || a.refused.CompareAndSwap(old, size) {
			return
		}
	}
}

// boundedMemory is one linear memory. wazero calls Reallocate from the
// guest's goroutine and Free when the instance closes; the mutex only guards
// against Free racing a grow during a context-driven close.
type boundedMemory struct {
	owner   *boundedAllocator
	capHint uint64
	max     uint64
	mu      sync.Mutex
	buf     []byte
	started bool
}

// Reallocate implements experimental.LinearMemory.
func (m *boundedMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	// The first call sizes the initial memory; wazero panics on nil there.
	// Compile already refused modules whose initial memory exceeds the limit.
	if m.started && size > m.owner.limit {
		m.owner.refuse(size)
		return nil
	}
	m.started = true
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size] // memory never shrinks, so the tail is still zero
		return m.buf
	}
	// Grow geometrically like append, never past what could be used.
	newCap := max(size, m.capHint, 2*uint64(cap(m.buf)))
	newCap = min(newCap, max(size, min(m.max, m.owner.limit)))
	buf := make([]byte, size, newCap)
	copy(buf, m.buf)
	m.buf = buf
	return buf
}

// Free implements experimental.LinearMemory.
func (m *boundedMemory) Free() {
	m.mu.Lock()
	m.buf = nil
	m.mu.Unlock()
}
