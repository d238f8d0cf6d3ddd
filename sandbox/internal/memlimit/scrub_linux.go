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

// newScrubber opens this process's page map, nil when it cannot.
func newScrubber() scrubber {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil
	}
	page := os.Getpagesize()
	return &pagemapScrubber{f: f, page: page, zero: make([]byte, page)}
}

func (s *pagemapScrubber) close() { _ = s.f.Close() }

// scrub implements scrubber, reading the map 512 pages at a time.
func (s *pagemapScrubber) scrub(region []byte, used uint64) bool {
	used = min(used, uint64(len(region)))
	if used == 0 {
		return true
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(region)))
	if base%uintptr(s.page) != 0 {
		return false
	}
	pages := int((used + uint64(s.page) - 1) / uint64(s.page))
	var entries [512 * 8]byte
	for first := 0; first < pages; first += 512 {
		n := min(512, pages-first)
		off := int64(base/uintptr(s.page)+uintptr(first)) * 8
		if got, err := s.f.ReadAt(entries[:n*8], off); err != nil || got != n*8 {
			return false
		}
		for i := range n {
			e := binary.LittleEndian.Uint64(entries[i*8:])
			if e&(pagePresent|pageSwapped) == 0 {
				continue
			}
			start := (first + i) * s.page
			p := region[start:min(start+s.page, len(region))]
			if !bytes.Equal(p, s.zero[:len(p)]) {
				clear(p)
			}
		}
	}
	return true
}
