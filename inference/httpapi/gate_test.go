package httpapi

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testEndpoint = "http://model.test/v1/chat/completions"

func testLimiter(max int, changes *[]ConnectionChange) *limiter {
	var mu sync.Mutex
	return newLimiter(Options{MaxConnections: max, Workers: 4, MaxRetryAfter: time.Minute, Now: time.Now,
		OnConnections: func(c ConnectionChange) {
			mu.Lock()
			defer mu.Unlock()
			if changes != nil {
				*changes = append(*changes, c)
			}
		}})
}

func answer(status int, retryAfter string) *http.Response {
	h := http.Header{}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return &http.Response{StatusCode: status, Header: h}
}

func mustAcquire(t *testing.T, l *limiter) *slot {
	t.Helper()
	s, err := l.acquire(context.Background(), testEndpoint)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	return s
}

// TestGateShrinkWhileInFlight: after a 429 halves a full limit of 8, no
// request starts until fewer than 4 are in flight.
func TestGateShrinkWhileInFlight(t *testing.T) {
	var changes []ConnectionChange
	l := testLimiter(8, &changes)
	held := make([]*slot, 8)
	for i := range held {
		held[i] = mustAcquire(t, l)
	}
	held[0].answered(answer(http.StatusTooManyRequests, ""))
	var started atomic.Int32
	var wg sync.WaitGroup
	got := make(chan *slot, 6)
	for range 6 {
		wg.Go(func() {
			s := mustAcquire(t, l)
			started.Add(1)
			got <- s
		})
	}
	for i := range 5 { // 8 -> 3 in flight
		held[i].release()
		time.Sleep(10 * time.Millisecond)
		if n := started.Load(); i < 4 && n != 0 {
			t.Fatalf("after %d of 8 released under a limit of 4: %d waiters started, want 0", i+1, n)
		}
	}
	first := <-got
	time.Sleep(10 * time.Millisecond)
	if n := started.Load(); n != 1 {
		t.Fatalf("with 3 in flight under a limit of 4: %d waiters started, want 1", n)
	}
	first.release()
	for _, s := range held[5:] {
		s.release()
	}
	for range 5 {
		(<-got).release()
	}
	wg.Wait()
	want := []ConnectionChange{{Endpoint: "http://model.test:80", From: 8, To: 4, Reason: ReasonRateLimited}}
	if diff := cmp.Diff(changes, want, cmpIgnoreTime); diff != "" {
		t.Errorf("changes (-got +want):\n%s", diff)
	}
	g := l.gate(endpointKey(testEndpoint))
	if g.inflight != 0 || g.waiters.Len() != 0 {
		t.Errorf("at the end: %d in flight, %d waiting, want 0 and 0", g.inflight, g.waiters.Len())
	}
}

var cmpIgnoreTime = cmp.Transformer("notime", func(c ConnectionChange) ConnectionChange { c.Time = time.Time{}; return c })

// TestGateWaiterCancelled: a cancelled waiter returns its context's error
// and leaves no slot taken.
func TestGateWaiterCancelled(t *testing.T) {
	l := testLimiter(1, nil)
	s := mustAcquire(t, l)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := l.acquire(ctx, testEndpoint)
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: err = %v, want context.Canceled", err)
	}
	s.release()
	s.release() // a second release does nothing
	s2 := mustAcquire(t, l)
	g := l.gate(endpointKey(testEndpoint))
	if g.inflight != 1 || g.waiters.Len() != 0 {
		t.Errorf("after the cancel: %d in flight, %d waiting, want 1 and 0", g.inflight, g.waiters.Len())
	}
	s2.release()
}

// TestGateRetryAfterHolds: a 429 with Retry-After holds new requests of
// the endpoint until it ends.
func TestGateRetryAfterHolds(t *testing.T) {
	l := newLimiter(Options{MaxConnections: 4, MaxRetryAfter: time.Minute, Now: time.Now})
	s := mustAcquire(t, l)
	h := answer(http.StatusTooManyRequests, "")
	h.Header.Set("retry-after-ms", "150")
	s.answered(h)
	s.release()
	start := time.Now()
	s = mustAcquire(t, l)
	if waited := time.Since(start); waited < 140*time.Millisecond {
		t.Errorf("waited %s after a Retry-After of 150ms, want at least 140ms", waited)
	}
	s.release()
}

// TestGateFixed: --connections fixed never changes the limit.
func TestGateFixed(t *testing.T) {
	l := newLimiter(Options{MaxConnections: 4, FixedConnections: true, Now: time.Now})
	s := mustAcquire(t, l)
	s.answered(answer(http.StatusTooManyRequests, "1"))
	s.release()
	got := l.ranges()
	want := []ConnectionRange{{Endpoint: "http://model.test:80", MaxAllowed: 4, Min: 4, Max: 4, Final: 4}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("ranges (-got +want):\n%s", diff)
	}
}

// TestGateHammer: many requests answered 429, 503 or 200 at random, some
// cancelled while waiting; never more in flight than --max-connections,
// nothing left held or waiting, and the range within [1, max].
func TestGateHammer(t *testing.T) {
	const maxConns = 16
	l := testLimiter(maxConns, nil)
	var active, peak atomic.Int32
	var wg sync.WaitGroup
	for w := range 64 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 200 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.IntN(200))*time.Microsecond)
				s, err := l.acquire(ctx, testEndpoint)
				cancel()
				if err != nil {
					continue
				}
				n := active.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				status := []int{200, 200, 200, 200, 200, 200, 429, 503}[r.IntN(8)]
				s.answered(answer(status, ""))
				active.Add(-1)
				s.release()
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > maxConns {
		t.Errorf("peak in flight %d, want at most %d", p, maxConns)
	}
	g := l.gate(endpointKey(testEndpoint))
	if g.inflight != 0 || g.waiters.Len() != 0 {
		t.Errorf("at the end: %d in flight, %d waiting, want 0 and 0", g.inflight, g.waiters.Len())
	}
	r := l.ranges()[0]
	if r.Min < 1 || r.Max > maxConns || r.Decreases == 0 {
		t.Errorf("range %+v: want within [1, %d] with decreases", r, maxConns)
	}
}

// BenchmarkGate is the cost of a slot per request (acquire, a 2xx
// answer, release) on one endpoint from parallel callers: fixed with no
// bound (no gate), adaptive with no bound, and a bound of 64.
func BenchmarkGate(b *testing.B) {
	for _, bc := range []struct {
		name string
		o    Options
	}{
		{"fixed-unbounded", Options{FixedConnections: true}},
		{"adaptive-unbounded", Options{}},
		{"adaptive-64", Options{MaxConnections: 64}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			bc.o.Now, bc.o.MaxRetryAfter = time.Now, time.Minute
			l := newLimiter(bc.o)
			ok := answer(http.StatusOK, "")
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					s, err := l.acquire(context.Background(), testEndpoint)
					if err != nil {
						b.Error(err)
						return
					}
					s.answered(ok)
					s.release()
				}
			})
		})
	}
}

// TestGateUnbounded: with no --max-connections nothing waits until the
// first 429; the limit is then half the requests in flight.
func TestGateUnbounded(t *testing.T) {
	var changes []ConnectionChange
	l := testLimiter(0, &changes)
	held := make([]*slot, 6)
	for i := range held {
		held[i] = mustAcquire(t, l)
	}
	held[5].answered(answer(http.StatusTooManyRequests, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := l.acquire(ctx, testEndpoint); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a 7th request under a limit of 3 with 6 in flight: err %v, want it to wait", err)
	}
	for _, s := range held[:4] { // 6 -> 2 in flight
		s.release()
	}
	s := mustAcquire(t, l)
	want := []ConnectionRange{{Endpoint: "http://model.test:80", Min: 3, Max: 6, Final: 3, Decreases: 1, Reasons: []string{"429"}}}
	if diff := cmp.Diff(l.ranges(), want); diff != "" {
		t.Errorf("ranges (-got +want):\n%s", diff)
	}
	for _, s := range append(held[4:], s) {
		s.release()
	}
	if len(changes) != 1 || changes[0].From != 6 || changes[0].To != 3 {
		t.Errorf("changes %+v, want 6 -> 3", changes)
	}
}
