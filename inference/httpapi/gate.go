package httpapi

import (
	"container/list"
	"context"
	"net/http"
	"slices"
	"sync"
	"time"
)

// gate is one endpoint's semaphore whose limit changes while requests
// hold it: waiters queue in order and are handed a slot when one is free
// under the current limit and no Retry-After holds the endpoint. A
// smaller limit takes effect as requests finish: none starts until fewer
// than the new limit are in flight. Safe for concurrent use.
type gate struct {
	key      string
	adaptive bool
	maxHold  time.Duration // a longer Retry-After holds nothing: its request gives up
	now      func() time.Time
	onChange func(ConnectionChange) // called with mu held

	mu       sync.Mutex
	a        aimd
	inflight int
	peak     int
	sent     uint64      // tickets handed out; a request's ticket orders it
	waiters  list.List   // of *waiter, oldest first
	timer    *time.Timer // wakes the waiters when a hold ends
	rng      ConnectionRange
}

// waiter is a request waiting for a slot; ticket is set, under the
// gate's mutex, when it is handed one, and ready closed.
type waiter struct {
	ready  chan struct{}
	ticket uint64
}

func newGate(key string, l *limiter) *gate {
	g := &gate{key: key, adaptive: l.adaptive, maxHold: l.maxHold, now: l.now, onChange: l.onChange, a: newAIMD(l.max, l.workers)}
	g.rng = ConnectionRange{Endpoint: key, MaxAllowed: l.max, Min: l.max, Max: l.max, Final: l.max}
	return g
}

// slot is a request's place under its endpoint's limit. The zero slot
// (no bound) does nothing.
type slot struct {
	g      *gate
	ticket uint64
	once   sync.Once
}

// acquire waits for a slot; it fails only when ctx ends.
func (g *gate) acquire(ctx context.Context) (*slot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.mu.Lock()
	if g.waiters.Len() == 0 && g.free(g.now()) {
		t := g.take()
		g.mu.Unlock()
		return &slot{g: g, ticket: t}, nil
	}
	w := &waiter{ready: make(chan struct{})}
	el := g.waiters.PushBack(w)
	g.arm(g.now())
	g.mu.Unlock()
	select {
	case <-w.ready:
		return &slot{g: g, ticket: w.ticket}, nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	if w.ticket != 0 { // handed a slot as ctx ended: give it back
		g.mu.Unlock()
		(&slot{g: g, ticket: w.ticket}).release()
		return nil, ctx.Err()
	}
	g.waiters.Remove(el)
	g.mu.Unlock()
	return nil, ctx.Err()
}

// free says whether a request may start now.
func (g *gate) free(now time.Time) bool {
	return (g.a.limit == 0 || g.inflight < g.a.limit) && !now.Before(g.a.hold)
}

func (g *gate) take() uint64 {
	g.inflight++
	g.peak = max(g.peak, g.inflight)
	g.sent++
	return g.sent
}

// grant hands free slots to the oldest waiters.
func (g *gate) grant() {
	now := g.now()
	for g.waiters.Len() > 0 && g.free(now) {
		w := g.waiters.Remove(g.waiters.Front()).(*waiter)
		w.ticket = g.take()
		close(w.ready)
	}
	g.arm(now)
}

// arm sets the timer that wakes the waiters when a Retry-After hold ends.
func (g *gate) arm(now time.Time) {
	if g.timer != nil || g.waiters.Len() == 0 || !now.Before(g.a.hold) {
		return
	}
	g.timer = time.AfterFunc(g.a.hold.Sub(now), func() {
		g.mu.Lock()
		g.timer = nil
		g.grant()
		g.mu.Unlock()
	})
}

// answered tells the gate the request got resp: a 429 or 503 may shrink
// the limit, a 2xx grow it. Call it before release, at most once.
func (s *slot) answered(resp *http.Response) {
	g := s.g
	if g == nil || !g.adaptive || resp == nil {
		return
	}
	now := g.now()
	var ra *time.Duration
	if d, ok := retryAfter(resp.Header, now); ok && d <= g.maxHold {
		ra = &d
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.a.answered(s.ticket, g.sent, g.inflight, g.peak, resp.StatusCode, ra, now)
	if ok {
		g.rng.record(c)
		if g.onChange != nil {
			g.onChange(ConnectionChange{Time: now, Endpoint: g.key, From: c.from, To: c.to, Reason: c.reason})
		}
	}
	g.grant() // a larger limit, or a hold's end
}

// release frees the slot; later calls do nothing.
func (s *slot) release() {
	if s.g == nil {
		return
	}
	s.once.Do(func() {
		s.g.mu.Lock()
		s.g.inflight--
		s.g.grant()
		s.g.mu.Unlock()
	})
}

// span is the range the gate's limit ran at.
func (g *gate) span() ConnectionRange {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.rng
	r.Reasons = slices.Clone(r.Reasons)
	return r
}
