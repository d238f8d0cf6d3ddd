package memlimit

import (
	"bytes"
	"os"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestPoolReusesScrubbed: a memory that ended goes back to its pool and the
// next memory of the same reach gets the same mapping, every byte zero
// again, whatever the guest wrote where (the first and last byte of a
// page, a page written and then zeroed, a page only read, the last page
// it could reach), its pages still resident.
func TestPoolReusesScrubbed(t *testing.T) {
	p := NewPool(4)
	defer p.Close()
	a := New(64*page, p)
	m := a.Allocate(page, 1<<32).(*memory)
	buf := m.Reallocate(17 * page)
	host := os.Getpagesize()
	buf[0] = 1
	buf[host-1] = 2
	buf[5*host] = 3
	buf[5*host] = 0 // written, then zero again
	_ = buf[9*host] // only read
	buf = m.Reallocate(40 * page)
	buf[40*page-1] = 4
	first := unsafe.SliceData(buf)
	m.Free()
	if p.Idle() != 1 {
		t.Fatalf("idle regions %d, want 1", p.Idle())
	}

	again := New(64*page, p).Allocate(page, 1<<32).(*memory)
	buf = again.Reallocate(64 * page)
	if unsafe.SliceData(buf) != first {
		t.Fatal("the next memory of the same reach got a new mapping")
	}
	if !bytes.Equal(buf, make([]byte, len(buf))) {
		i := bytes.IndexFunc(buf, func(r rune) bool { return r != 0 })
		t.Fatalf("a reused memory is not zero (byte %d)", i)
	}
	if resident(t, buf[:host]) != 1 {
		t.Fatal("the scrubbed page written first is no longer resident")
	}
	again.Free()
}

// TestPoolSizesApart: a region is only reused for a memory of its own
// reach; a full pool unmaps what it cannot keep; a closed pool keeps
// nothing.
func TestPoolSizesApart(t *testing.T) {
	p := NewPool(1)
	one := New(32*page, p).Allocate(page, 1<<32).(*memory)
	two := New(32*page, p).Allocate(page, 1<<32).(*memory)
	one.Reallocate(17 * page)[0] = 1
	two.Reallocate(17 * page)[0] = 1
	one.Free()
	two.Free()
	if p.Idle() != 1 {
		t.Fatalf("idle %d, want 1 (the pool holds at most one)", p.Idle())
	}
	other := New(48*page, p).Allocate(page, 1<<32).(*memory)
	other.Reallocate(17 * page)
	if p.Idle() != 1 || len(other.region) != 48*page {
		t.Fatalf("a memory of another reach took the idle region (idle %d, region %d)", p.Idle(), len(other.region))
	}
	p.Close()
	other.Free()
	if p.Idle() != 0 {
		t.Fatalf("a closed pool kept %d regions", p.Idle())
	}
}

// TestPoolConcurrent: memories taken and given back from many goroutines
// each start zero (run with -race).
func TestPoolConcurrent(t *testing.T) {
	p := NewPool(8)
	defer p.Close()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				m := New(32*page, p).Allocate(page, 1<<32).(*memory)
				buf := m.Reallocate(17 * page)
				if buf[g*100+i] != 0 || buf[len(buf)-1] != 0 {
					t.Error("a pooled memory was not zero")
				}
				buf[g*100+i] = byte(g + 1)
				buf[len(buf)-1] = 9
				m.Free()
			}
		})
	}
	wg.Wait()
}

// resident is how many of b's host pages are in memory (mincore).
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestPoolLetsLargeGo: a memory that grew past keepAtMost is unmapped, not
// kept.
func TestPoolLetsLargeGo(t *testing.T) {
	p := NewPool(4)
	defer p.Close()
	m := New(2*keepAtMost, p).Allocate(page, 1<<32).(*memory)
	m.Reallocate(keepAtMost + page)
	m.Free()
	if p.Idle() != 0 {
		t.Fatalf("idle %d: a memory of %d bytes was kept", p.Idle(), keepAtMost+page)
	}
}

// TestScrubberChecksTheMap: on this kernel the page map tells a written
// page from an untouched one, so a pool scrubs (and the tests above test
// reuse, not unmapping).
func TestScrubberChecksTheMap(t *testing.T) {
	s := newScrubber()
	if s == nil {
		t.Fatal("no scrubber: /proc/self/pagemap is missing or does not report written pages")
	}
	s.close()
}

// TestPoolPagesVisitsWhatWasTouched: Pages reads only the pages of a
// mapped memory that were written (an untouched page is not faulted in),
// and every page without a pool.
func TestPoolPagesVisitsWhatWasTouched(t *testing.T) {
	host := os.Getpagesize()
	region, ok := reserve(uint64(16 * host))
	if !ok {
		t.Skip("cannot map")
	}
	defer release(region)
	region[0], region[5*host+7] = 1, 2
	p := NewPool(1)
	defer p.Close()
	var got []int
	p.Pages(region, func(off int, page []byte) { got = append(got, off/host) })
	if want := []int{0, 5}; !slices.Equal(got, want) {
		t.Errorf("pool: visited pages %v, want %v", got, want)
	}
	if n := resident(t, region); n != 2 {
		t.Errorf("%d pages resident after Pages, want the 2 written", n)
	}
	got = nil
	(*Pool)(nil).Pages(region, func(off int, page []byte) { got = append(got, off/host) })
	if len(got) != 16 {
		t.Errorf("no pool: visited %d pages, want all 16", len(got))
	}
}
