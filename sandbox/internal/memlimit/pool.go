package memlimit

import (
	"os"
	"sync"
	"unsafe"
)

// Pool keeps the mappings of linear memories that ended, scrubbed back to
// zero, for the next memory of the same reach: a component instantiated
// for every driver turn and tool call then starts on pages that are
// already resident, rather than mapping a fresh region, faulting in every
// page it touches and unmapping it again (each fault and each unmap's TLB
// shootdown costs microseconds, far more under a hypervisor: RATIONALE.md,
// "Why are guest memories reused, scrubbed page by page").
//
// Scrubbing is what makes reuse safe: every page a memory could have
// reached (below the largest size the guest was given) that is resident or
// swapped out and holds a non-zero byte is zeroed before the region is
// handed out again, so the next guest sees exactly what a fresh mapping
// would show, zeros. Where the pages cannot be inspected (no
// /proc/self/pagemap, or one that does not report a written page, checked
// when the pool is made), regions are unmapped as without a pool.
//
// A Pool is safe for concurrent use. The zero Pool is not usable: use
// NewPool. A nil *Pool keeps nothing.
type Pool struct {
	mu   sync.Mutex
	free map[uint64][][]byte // by reach
	kept int                 // regions in free, and being scrubbed for it
	max  int                 // most regions kept; 0 once closed
	// life is held for reading while a region is scrubbed and for
	// writing while Close closes scrub: the scrubber's file is never read
	// after it is closed (its descriptor could by then name another file).
	life  sync.RWMutex
	scrub scrubber             // nil: cannot scrub, keep nothing
	hot   []span               // pages a fresh region gets present at once (Prefault)
	out   map[uintptr]struct{} // the regions handed out and not yet back, by address
}

// scrubber zeroes every page of region[:used] that may hold a non-zero
// byte, reporting false when it could not tell which ones do.
type scrubber interface {
	scrub(region []byte, used uint64) bool
	// visit calls fn with each page of region[:used] that may hold a
	// non-zero byte (and its offset); false, without calling fn, when it
	// cannot tell which.
	visit(region []byte, used uint64, fn func(off int, page []byte)) bool
	close()
}

// NewPool returns a pool keeping at most maxFree idle regions (at least
// one). Close releases them.
func NewPool(maxFree int) *Pool {
	return &Pool{free: map[uint64][][]byte{}, max: max(maxFree, 1), scrub: newScrubber(), out: map[uintptr]struct{}{}}
}

// get returns an idle region of exactly reach bytes, or a new one; ok is
// false when no mapping could be made.
func (p *Pool) get(reach uint64) (region []byte, ok bool) {
	if p == nil {
		return reserve(reach)
	}
	p.mu.Lock()
	if rs := p.free[reach]; len(rs) > 0 {
		region = rs[len(rs)-1]
		p.free[reach] = rs[:len(rs)-1]
		p.kept--
	}
	p.mu.Unlock()
	if region == nil {
		if region, ok = reserve(reach); !ok {
			return nil, false
		}
		p.prefault(region)
	}
	p.mu.Lock()
	p.out[base(region)] = struct{}{}
	p.mu.Unlock()
	return region, true
}

// base is the address region starts at.
func base(region []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(region))) }

// keepAtMost is the largest memory a pool keeps: a guest that grew past it
// touched more than is worth holding idle (every idle region keeps its
// pages resident) or scrubbing, and runs long enough that mapping afresh
// is cheap beside it.
const keepAtMost = 16 << 20

// put takes back a region whose guest has ended, of which it could reach
// the first used bytes: scrubbed and kept when there is room, else
// unmapped.
func (p *Pool) put(region []byte, used uint64) {
	if p != nil {
		p.mu.Lock()
		delete(p.out, base(region))
		p.mu.Unlock()
	}
	if p == nil || used > keepAtMost || !p.reserveSlot() {
		release(region)
		return
	}
	p.life.RLock()
	ok := p.scrub != nil && p.scrub.scrub(region, used)
	p.life.RUnlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !ok || p.max == 0 {
		p.kept--
		release(region)
		return
	}
	reach := uint64(len(region))
	p.free[reach] = append(p.free[reach], region)
}

// reserveSlot counts a region about to be scrubbed for keeping, false when
// the pool is full or closed.
func (p *Pool) reserveSlot() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kept >= p.max {
		return false
	}
	p.kept++
	return true
}

// Idle is the number of regions the pool holds for reuse.
func (p *Pool) Idle() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.kept
}

// Close unmaps every idle region. Memories still in use are unmapped when
// they end (a closed pool keeps nothing).
func (p *Pool) Close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	free := p.free
	p.free = map[uint64][][]byte{}
	for _, rs := range free {
		p.kept -= len(rs)
	}
	p.max = 0
	p.mu.Unlock()
	for _, rs := range free {
		for _, r := range rs {
			release(r)
		}
	}
	p.life.Lock()
	if p.scrub != nil {
		p.scrub.close()
		p.scrub = nil
	}
	p.life.Unlock()
}

// Mapped reports whether the pool reads the page map: Pages then visits
// only the pages a guest touched.
func (p *Pool) Mapped() bool {
	if p == nil {
		return false
	}
	p.life.RLock()
	defer p.life.RUnlock()
	return p.scrub != nil
}

// Pages calls fn with the offset and bytes of each page of buf, a linear
// memory, that may hold a non-zero byte: where the pool can read the page
// map and buf is page-aligned, only the pages resident or swapped out (an
// untouched page reads as zero and is not read, so not faulted in);
// otherwise every page of the host's size.
func (p *Pool) Pages(buf []byte, fn func(off int, page []byte)) {
	if p != nil {
		p.life.RLock()
		ok := p.scrub != nil && p.scrub.visit(buf, uint64(len(buf)), fn)
		p.life.RUnlock()
		if ok {
			return
		}
	}
	page := os.Getpagesize()
	for off := 0; off < len(buf); off += page {
		fn(off, buf[off:min(off+page, len(buf))])
	}
}
