package memlimit

import (
	"bytes"
	"os"
	"slices"
	"testing"
)

// TestCoalesce: page offsets become sorted, merged runs; duplicates,
// offsets off a page and negative ones are dropped; at most limit pages
// are kept, the lowest.
func TestCoalesce(t *testing.T) {
	const p = 4096
	for _, tt := range []struct {
		name    string
		offsets []int
		limit   int
		want    []span
	}{
		{"none", nil, 8, nil},
		{"one", []int{3 * p}, 8, []span{{3 * p, 4 * p}}},
		{"a run out of order", []int{5 * p, 3 * p, 4 * p}, 8, []span{{3 * p, 6 * p}}},
		{"two runs", []int{0, p, 9 * p}, 8, []span{{0, 2 * p}, {9 * p, 10 * p}}},
		{"duplicates", []int{2 * p, 2 * p, 3 * p, 3 * p}, 8, []span{{2 * p, 4 * p}}},
		{"off a page, negative", []int{5, -p, p + 1, 7 * p}, 8, []span{{7 * p, 8 * p}}},
		{"the lowest kept", []int{9 * p, 0, p, 2 * p}, 2, []span{{0, 2 * p}}},
		{"a duplicate does not count", []int{0, 0, 0, p}, 2, []span{{0, 2 * p}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := coalesce(tt.offsets, p, tt.limit); !slices.Equal(got, tt.want) {
				t.Errorf("coalesce(%v, %d) = %v, want %v", tt.offsets, tt.limit, got, tt.want)
			}
		})
	}
}

// TestPoolPrefaults: a region the pool maps afresh has exactly the pages
// Prefault named resident, all zero, and none before Prefault; offsets
// past the region are ignored; a later Prefault replaces the set.
func TestPoolPrefaults(t *testing.T) {
	host := os.Getpagesize()
	if probe, ok := reserve(uint64(host)); ok {
		err := populate(probe)
		release(probe)
		if err != nil {
			t.Skipf("this kernel cannot populate a mapping (MADV_POPULATE_WRITE: %v)", err)
		}
	}
	p := NewPool(4)
	defer p.Close()
	fresh := func() ([]byte, *memory) {
		m := New(64*page, p).Allocate(page, 1<<32).(*memory)
		return m.Reallocate(17 * page), m
	}
	buf, m := fresh()
	if n := resident(t, buf); n != 0 {
		t.Fatalf("%d pages resident before any Prefault", n)
	}
	m.Free()
	p.Close() // keep nothing: the next regions are fresh mappings
	p = NewPool(4)
	defer p.Close()
	p.Prefault([]int{2 * host, 3 * host, 7 * host, 3 * host, 5, 1 << 40})
	if got, want := p.Hot(), []int{2 * host, 3 * host, 7 * host, 1 << 40}; !slices.Equal(got, want) {
		t.Fatalf("Hot() = %v, want %v", got, want)
	}
	buf, m = fresh()
	defer m.Free()
	for i := range len(buf) / host {
		want := i == 2 || i == 3 || i == 7
		if got := resident(t, buf[i*host:(i+1)*host]) == 1; got != want {
			t.Errorf("page %d resident %v, want %v", i, got, want)
		}
	}
	if !bytes.Equal(buf, make([]byte, len(buf))) {
		t.Fatal("a prefaulted region is not zero")
	}
	p.Prefault([]int{0})
	if got := p.Hot(); !slices.Equal(got, []int{0}) {
		t.Fatalf("Hot() after a second Prefault = %v, want [0]", got)
	}
}

// TestPoolTracks: the pool tracks a page-aligned buffer it can see in
// the page map, not an unaligned one, an empty one or a nil pool's.
func TestPoolTracks(t *testing.T) {
	p := NewPool(1)
	defer p.Close()
	m := New(64*page, p).Allocate(page, 1<<32).(*memory)
	defer m.Free()
	buf := m.Reallocate(page)
	if !p.Tracks(buf) {
		t.Error("a mapped memory is not tracked")
	}
	if p.Tracks(buf[1:]) {
		t.Error("an unaligned buffer is tracked")
	}
	if p.Tracks(nil) {
		t.Error("an empty buffer is tracked")
	}
	var none *Pool
	if none.Tracks(buf) {
		t.Error("a nil pool tracks")
	}
}
