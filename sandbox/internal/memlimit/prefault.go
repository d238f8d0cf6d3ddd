package memlimit

import (
	"os"
	"slices"
)

// maxPrefault is the most pages Prefault makes present in a fresh region:
// the pages a guest writes at once are a few dozen (murmur's OpenAI driver:
// 13 of 272), and a larger set would make resident what a call may not
// touch.
const maxPrefault = 128

// span is a run of pages, in bytes from a region's start.
type span struct{ start, end int }

// Prefault makes the pages at offsets (byte offsets of the host's pages,
// in any order) present in every region the pool maps afresh from now on,
// before the guest's instantiation writes them: one madvise
// (MADV_POPULATE_WRITE) for each run of pages, instead of a page fault
// for each page the instantiation's data copy and the first call touch.
// On this machine's hypervisor a page fault costs 10-30 µs, and a run's
// first wave makes an instance for every session in flight
// (BENCHMARKS.md, issue 38, session 20). The pages are zero, as the
// mapping's are; only which are resident changes. At most maxPrefault
// pages are kept (the lowest offsets); a later call replaces the set. A
// nil pool ignores it.
func (p *Pool) Prefault(offsets []int) {
	if p == nil {
		return
	}
	size := os.Getpagesize()
	spans := coalesce(offsets, size, maxPrefault)
	p.mu.Lock()
	p.hot = spans
	p.mu.Unlock()
}

// coalesce turns page offsets into sorted, merged runs of at most limit
// pages in all, the lowest first; offsets not page-aligned or negative are
// ignored.
func coalesce(offsets []int, size, limit int) []span {
	pages := make([]int, 0, len(offsets))
	for _, o := range offsets {
		if o >= 0 && o%size == 0 {
			pages = append(pages, o)
		}
	}
	slices.Sort(pages)
	var spans []span
	n := 0
	for i, o := range pages {
		if n == limit {
			break
		}
		if i > 0 && o == pages[i-1] {
			continue // a duplicate
		}
		n++
		if k := len(spans) - 1; k >= 0 && spans[k].end == o {
			spans[k].end = o + size
			continue
		}
		spans = append(spans, span{o, o + size})
	}
	return spans
}

// prefault makes the pool's hot pages that lie within region present.
func (p *Pool) prefault(region []byte) {
	p.mu.Lock()
	spans := p.hot
	p.mu.Unlock()
	for _, s := range spans {
		if s.end > len(region) {
			break
		}
		if populate(region[s.start:s.end]) != nil {
			return // an older kernel: the pages fault in as they are touched
		}
	}
}

// Hot returns the byte offsets of the pages Prefault set, in order.
func (p *Pool) Hot() []int {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var offs []int
	for _, s := range p.hot {
		for o := s.start; o < s.end; o += os.Getpagesize() {
			offs = append(offs, o)
		}
	}
	return offs
}

// Tracks reports whether Pages visits only the pages of buf a guest
// touched: buf is a memory this pool mapped (not one on the Go heap,
// whose pages are all resident) and the pool reads the page map.
func (p *Pool) Tracks(buf []byte) bool {
	if len(buf) == 0 || !p.Mapped() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.out[base(buf)]
	return ok
}
