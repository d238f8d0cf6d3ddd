package memlimit

import (
	"bytes"
	"encoding/binary"
	"os"
	"unsafe"
)

// pagemapScrubber scrubs through /proc/self/pagemap, which says for each
// of the process's pages whether it is present in memory (bit 63) or
// swapped out (bit 62). A page that is neither has never been touched
// since it was mapped or last discarded, and reads as zero; any other page
// is zeroed unless it already is (checking first leaves a page only ever
// read, backed by the kernel's shared zero page, unallocated).
type pagemapScrubber struct {
	f    *os.File
	page int
	zero []byte // one zero page, to compare with
}

const (
	pagePresent = 1 << 63
	pageSwapped = 1 << 62
)

// newScrubber opens this process's page map, nil when it cannot or when
// the map does not tell a written page from an untouched one (an emulated
// /proc could report every page absent, and scrubbing would then leave
// what a guest wrote for the next).
func newScrubber() scrubber {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil
	}
	page := os.Getpagesize()
	s := &pagemapScrubber{f: f, page: page, zero: make([]byte, page)}
	if !s.works() {
		_ = f.Close()
		return nil
	}
	return s
}

// works maps two pages, writes the first, and checks that the map says the
// first is present and the second is neither present nor swapped.
func (s *pagemapScrubber) works() bool {
	region, ok := reserve(uint64(2 * s.page))
	if !ok {
		return false
	}
	defer release(region)
	region[0] = 1
	var e [16]byte
	base := uintptr(unsafe.Pointer(unsafe.SliceData(region))) / uintptr(s.page)
	if n, err := s.f.ReadAt(e[:], int64(base)*8); err != nil || n != len(e) {
		return false
	}
	first, second := binary.LittleEndian.Uint64(e[:8]), binary.LittleEndian.Uint64(e[8:])
	return first&pagePresent != 0 && second&(pagePresent|pageSwapped) == 0
}

func (s *pagemapScrubber) close() { _ = s.f.Close() }

// scrub implements scrubber.
func (s *pagemapScrubber) scrub(region []byte, used uint64) bool {
	return s.visit(region, used, func(_ int, p []byte) {
		if !bytes.Equal(p, s.zero[:len(p)]) {
			clear(p)
		}
	})
}

// visit implements scrubber, reading the map 512 pages at a time; it
// calls fn only once the whole map was read, so never when it fails.
func (s *pagemapScrubber) visit(region []byte, used uint64, fn func(off int, page []byte)) bool {
	used = min(used, uint64(len(region)))
	if used == 0 {
		return true
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(region)))
	if base%uintptr(s.page) != 0 {
		return false
	}
	pages := int((used + uint64(s.page) - 1) / uint64(s.page))
	var touched []int
	var entries [512 * 8]byte
	for first := 0; first < pages; first += 512 {
		n := min(512, pages-first)
		off := int64(base/uintptr(s.page)+uintptr(first)) * 8
		if got, err := s.f.ReadAt(entries[:n*8], off); err != nil || got != n*8 {
			return false
		}
		for i := range n {
			if e := binary.LittleEndian.Uint64(entries[i*8:]); e&(pagePresent|pageSwapped) != 0 {
				touched = append(touched, first+i)
			}
		}
	}
	for _, i := range touched {
		start := i * s.page
		fn(start, region[start:min(start+s.page, len(region))])
	}
	return true
}
