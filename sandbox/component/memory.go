package component

import (
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// limitAllocator backs one call's linear memory and refuses growth past
// limit, remembering the size asked for, so a balloon is reported as the
// memory limit rather than as whatever the guest does after memory.grow
// returns -1. It mirrors sandbox's allocator for preview-1 modules.
type limitAllocator struct {
	limit   uint64
	refused atomic.Uint64
}

func (a *limitAllocator) Allocate(capacity, maxBytes uint64) experimental.LinearMemory {
	return &limitMemory{owner: a, max: maxBytes}
}

type limitMemory struct {
	owner   *limitAllocator
	max     uint64
	mu      sync.Mutex
	buf     []byte
	started bool
}

func (m *limitMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started && size > m.owner.limit {
		for old := m.owner.refused.Load(); size > old && !m.owner.refused.CompareAndSwap(old, size); old = m.owner.refused.Load() {
		}
		return nil
	}
	if !m.started && size > m.owner.limit {
		m.owner.refused.Store(size)
		return nil
	}
	m.started = true
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	newCap := min(max(size, 2*uint64(cap(m.buf))), max(size, min(m.max, m.owner.limit)))
	buf := make([]byte, size, newCap)
	copy(buf, m.buf)
	m.buf = buf
	return buf
}

func (m *limitMemory) Free() {
	m.mu.Lock()
	m.buf = nil
	m.mu.Unlock()
}
