package component

import (
	"bytes"
	"context"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero/api"

	"github.com/murmur-nexus/murmur-eval/sandbox/internal/memlimit"
)

// reuse keeps the instances of a component whose call ended cleanly,
// reset to the state instantiation gave them, for the next call: a driver
// turn or a tool call then costs a reset (a few pages copied, the mutable
// globals set) instead of an instantiation (every global, table element
// and data segment built again, and the garbage that leaves).
//
// A reset instance is indistinguishable from a fresh one because the
// three parts of a core instance's state that a call can change are all
// put back or ruled out:
//   - linear memory: every page that may hold a non-zero byte
//     (memlimit.Pool.Pages) is zeroed, or given back its bytes when
//     instantiation wrote it (the image taken of the first instance); a
//     memory that grew is not reused (a memory never shrinks);
//   - mutable globals: Compile exports each one (binary.PrepareReset), and
//     reset sets it back to its value after instantiation;
//   - tables and segments: binary.PrepareReset refuses a module whose code
//     has any instruction that changes them (or any it does not know), and
//     such a component is instantiated afresh for every call, as before.
//
// The image is shared by every instance of the component, which is
// correct only if instantiation is deterministic: it is, unless
// instantiation calls the host (a start function reading the clock, the
// environment or random bytes); an instance whose instantiation made a
// host call is never reused, nor is one whose state after instantiation
// differs from the image (the first checkFirst fresh instances have their
// pages compared with it, every one its memory's size and globals). Only
// instances whose every call returned without error, trap, refused growth
// or the call's context ending (wazero closes a module asynchronously when
// a call's context ends) go back.
type reuse struct {
	globals []string // exports of the main module's mutable globals
	pool    *memlimit.Pool
	max     int    // most idle instances kept
	zero    []byte // one zero page of the host's size, to compare with

	mu   sync.Mutex
	idle []*instance
	img  *image // nil until the first instance is taken; off when unusable
	off  bool   // reuse disabled: an instance did not match the image

	reused  atomic.Int64 // calls served by a reset instance (for tests)
	learned atomic.Bool  // the pool was told the pages a call touches (learn, reset)
	matched atomic.Int64 // fresh instances found to match the image (fresh)
}

// checkFirst is how many fresh instances have their memory's pages
// compared with the image; later ones have only its size and their
// globals compared. Instantiation without a host call is deterministic
// (reuse), so the pages confirm, on the first few, what the host-call
// count already rules; comparing every fresh instance's pages cost a
// run's first wave 84 µs an instance, reading the page map and comparing
// the pages instantiation wrote (BENCHMARKS.md, issue 38, session 21).
const checkFirst = 8

// image is the state of the main module's instance right after
// instantiation: its memory's size and the pages that are not all zeros,
// and its mutable globals' values.
type image struct {
	size    uint32
	pages   []imagePage
	globals []uint64
}

type imagePage struct {
	off  uint32
	data []byte
}

// newReuse returns reuse for a main module whose mutable globals are
// exported as globals (binary.PrepareReset), keeping at most max idle
// instances with memories from pool.
func newReuse(globals []string, pool *memlimit.Pool, max int) *reuse {
	return &reuse{globals: globals, pool: pool, max: max, zero: make([]byte, os.Getpagesize())}
}

// get returns an idle instance for a call with memory limit limit, bound
// to s, or nil when there is none.
func (r *reuse) get(s *state, limit uint64) *instance {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	var in *instance
	for i := len(r.idle) - 1; i >= 0 && !r.off; i-- {
		if r.idle[i].limit == limit {
			in = r.idle[i]
			r.idle = append(r.idle[:i], r.idle[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
	if in == nil {
		return nil
	}
	r.reused.Add(1)
	in.bind(s)
	return in
}

// fresh records a freshly instantiated instance: the first one gives the
// image, later ones are checked against it (checkFirst). It reports
// whether in may be reused after its call.
func (r *reuse) fresh(in *instance) bool {
	if r == nil || in.s.hostCalls != 0 {
		return false
	}
	r.mu.Lock()
	img, off := r.img, r.off
	r.mu.Unlock()
	if off {
		return false
	}
	if img != nil {
		pages := r.matched.Load() < checkFirst
		if img.matches(in, r, pages) {
			if pages {
				r.matched.Add(1)
			}
			return true
		}
		// Instantiation is not deterministic after all: reuse would
		// give a call another instance's start.
		r.close(context.Background())
		return false
	}
	img, ok := snapshot(in, r)
	if !ok {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.img == nil {
		r.img = img
		// The pages instantiation writes: every later instance's memory
		// gets them present at once, before its data copy (Prefault).
		r.pool.Prefault(img.offsets())
	}
	return r.img.equal(img)
}

// put resets in after a clean call and keeps it, or reports false (the
// caller then closes it).
func (r *reuse) put(in *instance) bool {
	if r == nil || !in.reusable || in.m.IsClosed() || in.refused() > 0 {
		return false
	}
	r.mu.Lock()
	img, room := r.img, !r.off && len(r.idle) < r.max
	r.mu.Unlock()
	if img == nil || !room || !r.reset(in, img) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.off || len(r.idle) >= r.max {
		return false
	}
	in.s = nil // the call's state is not kept alive by an idle instance
	r.idle = append(r.idle, in)
	return true
}

// reset puts in's memory and globals back to img, false when it cannot.
// One pass over the pages that may hold a non-zero byte (pool.Pages), in
// order: an image page gets the image's bytes, any other is zeroed unless
// it is zero already, and the image pages the pass skips (not resident)
// are written as it goes by them.
func (r *reuse) reset(in *instance, img *image) bool {
	mem := in.m.Memory()
	if mem == nil || mem.Size() != img.size || (!r.pool.Mapped() && img.size > resetWholeAtMost) {
		return false
	}
	buf, ok := mem.Read(0, img.size)
	if !ok {
		return false
	}
	// A guest that never waited teaches the pool at its first reset, with
	// the pages its whole call touched (learn).
	r.learn(in)
	next := 0
	// restore writes the image pages below upTo that the walk did not
	// reach (not resident), in order.
	restore := func(upTo int) {
		for ; next < len(img.pages) && int(img.pages[next].off) < upTo; next++ {
			copy(buf[img.pages[next].off:], img.pages[next].data)
		}
	}
	r.pool.Pages(buf, func(off int, p []byte) {
		restore(off)
		if next < len(img.pages) && int(img.pages[next].off) == off {
			copy(p, img.pages[next].data)
			next++
			return
		}
		if !bytes.Equal(p, r.zero[:len(p)]) {
			clear(p)
		}
	})
	restore(len(buf))
	for i, name := range r.globals {
		g, ok := in.m.ExportedGlobal(name).(api.MutableGlobal)
		if !ok {
			return false
		}
		g.Set(img.globals[i])
	}
	return true
}

// resetWholeAtMost is the largest memory reset visits page by page where
// the page map cannot say which pages were touched: beyond it a reset
// would cost more than an instantiation.
const resetWholeAtMost = 4 << 20

// close closes every idle instance and keeps none from now on.
func (r *reuse) close(ctx context.Context) {
	if r == nil {
		return
	}
	r.mu.Lock()
	idle := r.idle
	r.idle, r.off = nil, true
	r.mu.Unlock()
	for _, in := range idle {
		_ = in.m.Close(context.WithoutCancel(ctx))
	}
}

// snapshot reads in's memory (the pages that may hold a non-zero byte:
// pool.Pages) and mutable globals.
func snapshot(in *instance, r *reuse) (*image, bool) {
	img := &image{}
	if mem := in.m.Memory(); mem != nil {
		img.size = mem.Size()
		buf, ok := mem.Read(0, img.size)
		if !ok {
			return nil, false
		}
		r.pool.Pages(buf, func(off int, p []byte) {
			if !bytes.Equal(p, r.zero[:len(p)]) {
				img.pages = append(img.pages, imagePage{off: uint32(off), data: bytes.Clone(p)})
			}
		})
	}
	for _, name := range r.globals {
		g := in.m.ExportedGlobal(name)
		if _, ok := g.(api.MutableGlobal); !ok {
			return nil, false
		}
		img.globals = append(img.globals, g.Get())
	}
	return img, true
}

// learning reports whether the pool has yet to learn which pages a call
// touches (learn).
func (r *reuse) learning() bool { return r != nil && !r.learned.Load() }

// learn tells the pool, once, which pages of in's memory are touched at
// this point of a call (the image's among them, as instantiation wrote
// them): called at a call's first wait (wasi.Host.OnWait), while the
// guest is suspended, it gives the pages a call touches before it waits
// for the network: a driver's, its request built and sent, which is what
// a run's first wave makes every instance do before any call ends; called
// at a reset, before the memory is put back, for a guest that never
// waits, the pages its whole call touched. Only a memory the pool mapped
// teaches (Pool.Tracks). Fresh memories then get those pages present at
// once (memlimit.Pool.Prefault).
func (r *reuse) learn(in *instance) {
	if !r.learning() {
		return // every reset after the first costs this check alone
	}
	mem := in.m.Memory()
	if mem == nil {
		return
	}
	buf, ok := mem.Read(0, mem.Size())
	if !ok || !r.pool.Tracks(buf) || !r.learned.CompareAndSwap(false, true) {
		return
	}
	var touched []int
	r.pool.Pages(buf, func(off int, _ []byte) { touched = append(touched, off) })
	r.pool.Prefault(touched)
}

// offsets are the byte offsets of the image's pages.
func (img *image) offsets() []int {
	offs := make([]int, len(img.pages))
	for i, p := range img.pages {
		offs[i] = int(p.off)
	}
	return offs
}

// equal reports whether two images are the same state.
func (img *image) equal(o *image) bool {
	if img.size != o.size || len(img.pages) != len(o.pages) || !slices.Equal(img.globals, o.globals) {
		return false
	}
	for i, p := range img.pages {
		if p.off != o.pages[i].off || !bytes.Equal(p.data, o.pages[i].data) {
			return false
		}
	}
	return true
}

// matches reports whether in's state is img: its memory's size, its
// globals and, with pages, every page that may hold a non-zero byte, read
// in place where snapshot would copy it.
func (img *image) matches(in *instance, r *reuse, pages bool) bool {
	if mem := in.m.Memory(); mem != nil {
		buf, ok := mem.Read(0, mem.Size())
		if !ok || mem.Size() != img.size || (pages && !img.samePages(buf, r)) {
			return false
		}
	}
	for i, name := range r.globals {
		g := in.m.ExportedGlobal(name)
		if g == nil || g.Get() != img.globals[i] {
			return false
		}
	}
	return true
}

// samePages reports whether memory buf holds the image's pages and zeros
// elsewhere.
func (img *image) samePages(buf []byte, r *reuse) bool {
	same, next := true, 0
	r.pool.Pages(buf, func(off int, p []byte) {
		want := r.zero[:len(p)]
		if next < len(img.pages) && int(img.pages[next].off) == off {
			want = img.pages[next].data
			next++
		}
		same = same && bytes.Equal(p, want)
	})
	return same && next == len(img.pages)
}
