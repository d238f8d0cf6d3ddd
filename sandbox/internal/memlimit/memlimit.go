// Package memlimit is the one linear-memory limit for both kinds of guest:
// sandbox's preview-1 modules and sandbox/component's components. An
// Allocator serves one call (one store, in murmur's terms): it backs every
// linear memory instantiated under it, refuses any size past its limit and
// records the largest size refused, so the caller can report the memory
// limit (E-RUN-001, sandbox.ErrMemory) with murmur's words rather than
// whatever the guest does after memory.grow returns -1.
//
// The initial size of a memory is judged like any growth, as wasmtime's
// store limiter judges it (murmur's limiter is asked about the initial
// memory when an instance is created: growing from 0 to the minimum). A
// refused initial memory ends the instantiation; see Allocator.Instantiate.
package memlimit

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// Allocator is an experimental.MemoryAllocator bounded by a limit in bytes.
// A nil *Allocator is no limit: its methods are safe to call and Refused is 0.
type Allocator struct {
	limit   uint64
	pool    *Pool         // where mapped memories come from and go back to; nil: none
	refused atomic.Uint64 // largest refused size in bytes; 0 = none
	initial atomic.Bool   // a memory's initial size was refused
}

// New returns an allocator for one call that refuses memories larger than
// limit bytes, its mapped memories taken from and given back to pool (nil:
// each mapped afresh and unmapped at its end). limit must be positive;
// callers with no limit use nil.
func New(limit uint64, pool *Pool) *Allocator {
	return &Allocator{limit: limit, pool: pool}
}

// Refused is the largest size in bytes the allocator refused, 0 if none.
func (a *Allocator) Refused() uint64 {
	if a == nil {
		return 0
	}
	return a.refused.Load()
}

// Instantiate runs instantiate, which must create its memories under a (its
// context carries a through experimental.WithMemoryAllocator). wazero cannot
// fail an initial allocation: it indexes the buffer Reallocate returned and
// panics on nil. Instantiate turns exactly that panic, the one a refused
// initial memory causes, into an error; any other panic goes on. The
// instantiation had not registered the module yet, so nothing is left open.
func (a *Allocator) Instantiate(instantiate func() error) (err error) {
	if a == nil {
		return instantiate()
	}
	defer func() {
		if !a.initial.Load() {
			return
		}
		if r := recover(); r != nil {
			err = fmt.Errorf("initial linear memory of %d bytes refused by the memory limit (%d)", a.refused.Load(), a.limit)
		}
	}()
	return instantiate()
}

// Allocate implements experimental.MemoryAllocator.
func (a *Allocator) Allocate(capacity, maxBytes uint64) experimental.LinearMemory {
	return &memory{owner: a, capHint: capacity, max: maxBytes}
}

// refuse records size (keeping the largest) and whether it was an initial
// size.
func (a *Allocator) refuse(size uint64, initial bool) {
	if initial {
		a.initial.Store(true)
	}
	for {
		old := a.refused.Load()
		if size <= old || a.refused.CompareAndSwap(old, size) {
			return
		}
	}
}

// memory is one linear memory. wazero calls Reallocate from the guest's
// goroutine and Free when the instance closes; the mutex only guards
// against Free racing a grow during a context-driven close.
type memory struct {
	owner   *Allocator
	capHint uint64
	max     uint64
	mu      sync.Mutex
	buf     []byte
	started bool
	// region is the mapping buf lies in, when reserve made one: the
	// memory's whole reach (its maximum, bounded by the limit), so growing
	// never moves it. nil when buf is on the Go heap.
	region []byte
}

// mapAtLeast is the smallest reach worth a mapping of its own: below it a
// memory stays on the Go heap.
const mapAtLeast = 1 << 20

// Reallocate implements experimental.LinearMemory: nil refuses size.
func (m *memory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if size > m.owner.limit {
		m.owner.refuse(size, !m.started)
		return nil
	}
	m.started = true
	if m.buf == nil && m.region == nil {
		if reach := pageUp(min(m.max, m.owner.limit)); reach >= max(size, mapAtLeast) {
			if region, ok := m.owner.pool.get(reach); ok {
				m.region = region
				m.buf = region[:0:reach]
			}
		}
	}
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
func (m *memory) Free() {
	m.mu.Lock()
	if m.region != nil {
		// A memory never shrinks: no byte of region past buf's length,
		// the largest size the guest was given, was ever reachable.
		m.owner.pool.put(m.region, uint64(len(m.buf)))
		m.region = nil
	}
	m.buf = nil
	m.mu.Unlock()
}

// pageUp rounds n up to the 64 KiB WebAssembly page (a multiple of every
// host's page size).
func pageUp(n uint64) uint64 {
	const page = 1 << 16
	return (n + page - 1) &^ (page - 1)
}
