package pacing

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// The tests run in synctest bubbles: the model's latency and the pacer's
// quiet moments are on the bubble's clock, which moves only when every
// goroutine of the run is blocked, so the orderings asserted are the
// pacer's, not the machine's.

// TestAdaptiveBoundsLiveCasesAndPreparesAhead: with a model that makes
// every session wait, at most Workers cases are in the live stage at once,
// and the next ones are prepared meanwhile (more cases than Workers in
// flight, never more than twice as many), and every case passes once.
func TestAdaptiveBoundsLiveCasesAndPreparesAhead(t *testing.T) {
	for _, workers := range []int{1, 3, 16} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			// As many prepared ahead as live; the six waves back to back:
			// the cases prepared ahead take each slot as it is freed.
			synctest.Test(t, func(t *testing.T) { waves(t, workers, NewAdaptive(workers, nil), 2*workers) })
		})
	}
}

// TestAdaptiveHandsTheSlotBeforeFinishing: when a live case ends, the case
// prepared behind it takes its slot before the ended case's Report runs.
func TestAdaptiveHandsTheSlotBeforeFinishing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ev events
		g := pacedGraph(t, nil,
			func(ctx context.Context, c *pipeline.Case) error {
				ev.note("live " + c.ID)
				return waitModel(100*time.Millisecond)(ctx, c)
			},
			func(_ context.Context, c *pipeline.Case) error { ev.note("report " + c.ID); return nil })
		r := &pipeline.Runner{Graph: g, Workers: 1, NewCase: newCase, Pacer: NewAdaptive(1, nil)}
		if _, err := collect(r, context.Background(), jobs(3)); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%q", []string{"live case-000", "live case-001", "report case-000", "live case-002", "report case-001", "report case-002"})
		if got := ev.String(); got != want {
			t.Errorf("order = %s, want %s", got, want)
		}
	})
}

// TestAdaptiveNeverQuietRunsNoCaseAhead: a run whose live cases never wait
// (replayed, CPU-bound) has nothing to gain from preparing ahead: at most
// Workers cases are in flight, as without a pacer, and OnQuiet never runs.
func TestAdaptiveNeverQuietRunsNoCaseAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var cases peakCounter
		var quiet atomic.Int64
		g := pacedGraph(t,
			func(context.Context, *pipeline.Case) error { cases.enter(); return nil },
			func(context.Context, *pipeline.Case) error { runtime.Gosched(); return nil }, // CPU-bound: the bubble's clock stands
			func(context.Context, *pipeline.Case) error { cases.leave(); return nil })
		p := NewAdaptive(2, func() { quiet.Add(1) })
		r := &pipeline.Runner{Graph: g, Workers: 2, NewCase: newCase, Pacer: p}
		got, err := collect(r, context.Background(), jobs(200))
		if err != nil || len(got) != 200 {
			t.Fatalf("got %d cases, %v; want 200", len(got), err)
		}
		if n := cases.peak.Load(); n > 2 {
			t.Errorf("peak cases in flight = %d, want at most 2", n)
		}
		if n := quiet.Load(); n != 0 {
			t.Errorf("OnQuiet ran %d times in a run that never waits", n)
		}
		select {
		case <-p.Ahead():
			t.Error("Ahead opened in a run that never waits")
		default:
		}
	})
}

// TestAdaptiveOnQuiet: OnQuiet runs when every live case waits for its
// model; Ahead opens once a quiet moment has lasted 20 ms, not before.
func TestAdaptiveOnQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quiet := make(chan time.Duration, 100)
		start := time.Now()
		p := NewAdaptive(2, func() { quiet <- time.Since(start) })
		r := &pipeline.Runner{Graph: pacedGraph(t, nil, waitModel(50*time.Millisecond), nil), Workers: 2, NewCase: newCase, Pacer: p}
		aheadAt := make(chan time.Duration, 1)
		go func() { <-p.Ahead(); aheadAt <- time.Since(start) }()
		if _, err := collect(r, context.Background(), jobs(6)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if len(quiet) == 0 {
			t.Fatal("OnQuiet never ran in a run whose cases wait")
		}
		if first := <-quiet; first != quietAfter {
			t.Errorf("first quiet moment at %v, want %v (the first wave waits from the start)", first, quietAfter)
		}
		if at := <-aheadAt; at != quietAfter+aheadProbe {
			t.Errorf("Ahead opened at %v, want %v", at, quietAfter+aheadProbe)
		}
	})
}

// TestAdaptiveTimeoutCountsOnlyTheStages: a prepared case waits for its
// slot longer than its --timeout, and still passes: --timeout bounds the
// time its stages run. A case whose own stage runs too long times out.
func TestAdaptiveTimeoutCountsOnlyTheStages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := pacedGraph(t, nil, func(ctx context.Context, c *pipeline.Case) error {
			d := 100 * time.Millisecond // a case prepared ahead waits about as long for its slot
			if c.ID == "case-003" {
				d = time.Second
			}
			return waitModel(d)(ctx, c)
		}, nil)
		r := &pipeline.Runner{Graph: g, Workers: 1, Timeout: 150 * time.Millisecond, NewCase: newCase, Pacer: NewAdaptive(1, nil)}
		got, err := collect(r, context.Background(), jobs(5))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range got {
			want := pipeline.StatusPassed
			if c.ID == "case-003" {
				want = pipeline.StatusTimeout
			}
			v := pipeline.Judge(c)
			if v.Status != want {
				t.Errorf("%s: status %s, want %s (%v)", c.ID, v.Status, want, v.Err)
			}
			if c.ID == "case-003" && !errcode.Is(v.Err, errcode.Timeout) {
				t.Errorf("%s: error %v, want %s", c.ID, v.Err, errcode.Timeout)
			}
		}
	})
}

// TestAdaptiveInterrupt cancels the run while cases wait for their model
// and others wait for a slot or a quiet moment: Run returns, every case
// that started is emitted once, those that had not ended cancelled, and no
// case starts afterwards. The 4th live case is in the first wave (nothing
// prepared ahead yet: exactly 4 cases); the 10th in the third, after the
// workers ahead started.
func TestAdaptiveInterrupt(t *testing.T) {
	const workers = 4
	for _, at := range []int{4, 10} {
		t.Run(fmt.Sprint("live=", at), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				var live, started atomic.Int64
				g := pacedGraph(t, func(context.Context, *pipeline.Case) error { started.Add(1); return nil },
					func(ctx context.Context, c *pipeline.Case) error {
						d := 50 * time.Millisecond
						if n := live.Add(1); n == int64(at) {
							cancel(pipeline.ErrInterrupted)
						}
						if ctx.Err() != nil {
							d = time.Hour
						}
						return waitModel(d)(ctx, c)
					}, nil)
				p := NewAdaptive(workers, nil)
				r := &pipeline.Runner{Graph: g, Workers: workers, NewCase: newCase, Pacer: p}
				got, err := collect(r, ctx, jobs(100))
				if !errcode.Is(err, errcode.Cancelled) {
					t.Errorf("Run error = %v, want %s", err, errcode.Cancelled)
				}
				if int64(len(got)) != started.Load() || len(got) < at || len(got) > at+2*workers {
					t.Fatalf("emitted %d cases, %d started; want as many, %d to %d", len(got), started.Load(), at, at+2*workers)
				}
				if at == workers && len(got) != workers {
					t.Errorf("emitted %d cases, want the %d of the first wave", len(got), workers)
				}
				seen := map[string]bool{}
				cancelled := 0
				for _, c := range got {
					if seen[c.ID] {
						t.Errorf("%s emitted twice", c.ID)
					}
					seen[c.ID] = true
					switch v := pipeline.Judge(c); v.Status {
					case pipeline.StatusCancelled:
						cancelled++
					case pipeline.StatusPassed:
					default:
						t.Errorf("%s: status %s (%v), want passed or cancelled", c.ID, v.Status, v.Err)
					}
				}
				if cancelled == 0 || at == workers && cancelled != len(got) {
					t.Errorf("%d of %d cases cancelled", cancelled, len(got))
				}
				checkBooks(t, p, workers)
			})
		})
	}
}

// checkBooks checks that p holds nothing at the end of a run: no slot,
// claim, busy mark or case left counted, nobody queued.
func checkBooks(t *testing.T, p *Adaptive, slots int) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.free != slots || p.claims != 0 || p.busy != 0 || p.cases != 0 || len(p.slotQ) != 0 {
		t.Errorf("pacer books at the end: free %d (want %d), claims %d, busy %d, cases %d, slotQ %d; want 0",
			p.free, slots, p.claims, p.busy, p.cases, len(p.slotQ))
	}
}
