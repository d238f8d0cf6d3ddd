package memlimit

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestMappedMemory: a memory whose reach (its maximum, bounded by the
// limit) is 1 MiB or more lives in a mapping of that reach: zero-filled,
// never moved by growth (wazero may keep using the old slice until it asks
// again), and unmapped by Free; a smaller reach stays on the Go heap.
func TestMappedMemory(t *testing.T) {
	a := New(64*page, nil)
	m := a.Allocate(page, 1<<32).(*memory)
	first := m.Reallocate(17 * page)
	if m.region == nil || uint64(len(m.region)) != 64*page {
		t.Fatalf("region of %d bytes, want a mapping of the limit's %d", len(m.region), 64*page)
	}
	if !bytes.Equal(first, make([]byte, len(first))) {
		t.Fatal("a fresh memory is not zero")
	}
	first[len(first)-1] = 7
	grown := m.Reallocate(40 * page)
	if len(grown) != 40*page || unsafe.SliceData(grown) != unsafe.SliceData(first) || grown[17*page-1] != 7 || grown[17*page] != 0 {
		t.Fatalf("growth moved or lost the memory (len %d)", len(grown))
	}
	m.Free()
	if m.region != nil || m.buf != nil {
		t.Fatal("Free left the mapping")
	}

	small := New(8*page, nil).Allocate(page, 1<<32).(*memory)
	if b := small.Reallocate(page); len(b) != page || small.region != nil {
		t.Fatalf("a reach of 8 pages: region %d bytes, want the Go heap", len(small.region))
	}
	small.Free()
}
