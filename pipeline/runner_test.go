package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

func jobs(n int) []Job {
	js := make([]Job, n)
	for i := range js {
		id := fmt.Sprintf("case-%03d", i)
		js[i] = Job{ID: id, Input: datasets.Case{ID: id}, Epoch: 1}
	}
	return js
}

func collect(t *testing.T, r *Runner, ctx context.Context, js []Job) ([]*Case, error) {
	t.Helper()
	done := make(chan *Case)
	var got []*Case
	var wg sync.WaitGroup
	wg.Go(func() {
		for c := range done {
			got = append(got, c)
		}
	})
	err := r.Run(ctx, slices.Values(js), done)
	close(done)
	wg.Wait()
	return got, err
}

// TestRunnerWorkerBoundHammer runs many short cases on a few workers and
// checks that the number of cases in flight never exceeds the bound, that it
// is reached, and that every case comes out exactly once. Each case lasts
// a millisecond of the bubble's clock, which moves only when every worker
// is in one: so the bound is reached.
func TestRunnerWorkerBoundHammer(t *testing.T) {
	for _, workers := range []int{1, 3, 8} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var inFlight, peak atomic.Int64
				g, err := NewGraph(Node{Stage: fakeStage{name: "loop", run: func(context.Context, *Case) error {
					n := inFlight.Add(1)
					for {
						p := peak.Load()
						if n <= p || peak.CompareAndSwap(p, n) {
							break
						}
					}
					time.Sleep(time.Millisecond)
					inFlight.Add(-1)
					return nil
				}}})
				if err != nil {
					t.Fatal(err)
				}
				r := &Runner{Graph: g, Workers: workers, NewCase: func(j Job) *Case { return &Case{ID: j.ID, Input: j.Input, Epoch: j.Epoch} }}
				got, err := collect(t, r, context.Background(), jobs(300))
				if err != nil {
					t.Fatal(err)
				}
				if p := peak.Load(); p > int64(workers) || p < int64(workers) {
					t.Errorf("peak in flight = %d, want exactly %d", p, workers)
				}
				seen := map[string]bool{}
				for _, c := range got {
					if seen[c.ID] {
						t.Errorf("case %s emitted twice", c.ID)
					}
					seen[c.ID] = true
				}
				if len(seen) != 300 {
					t.Errorf("emitted %d distinct cases, want 300", len(seen))
				}
			})
		})
	}
}

// TestRunnerTimeoutIsolatesTheStuckCase: one case blocks until its context
// ends; it must end as a timeout, after exactly its --timeout on the
// bubble's clock, while every other case completes.
func TestRunnerTimeoutIsolatesTheStuckCase(t *testing.T) {
	synctest.Test(t, testRunnerTimeoutIsolatesTheStuckCase)
}

func testRunnerTimeoutIsolatesTheStuckCase(t *testing.T) {
	report := Node{Stage: fakeStage{name: "report"}}
	report.Requires, report.RunDespiteFailure = []string{"loop"}, true
	start := time.Now()
	g, err := NewGraph(
		Node{Stage: fakeStage{name: "loop", run: func(ctx context.Context, c *Case) error {
			if c.ID == "case-002" {
				<-ctx.Done()
				return ctx.Err()
			}
			setExit(c, ExitOK)
			return nil
		}}},
		report,
	)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Graph: g, Workers: 2, Timeout: 100 * time.Millisecond, NewCase: func(j Job) *Case { return &Case{ID: j.ID, Input: j.Input} }}
	got, err := collect(t, r, context.Background(), jobs(6))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 {
		t.Fatalf("got %d cases, want 6", len(got))
	}
	for _, c := range got {
		v := Judge(c)
		want := StatusPassed
		if c.ID == "case-002" {
			want = StatusTimeout
		}
		if v.Status != want {
			t.Errorf("%s: status %s, want %s", c.ID, v.Status, want)
		}
	}
	if d := time.Since(start); d != 100*time.Millisecond {
		t.Errorf("the run took %v, want the stuck case's 100ms", d)
	}
}

// TestRunnerInterruptStopsStartingCases cancels the run while the first
// cases run: they end cancelled and are still emitted; no later case starts.
func TestRunnerInterruptStopsStartingCases(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var started atomic.Int64
	g, err := NewGraph(Node{Stage: fakeStage{name: "loop", run: func(ctx context.Context, c *Case) error {
		if started.Add(1) == 2 {
			cancel(ErrInterrupted)
		}
		<-ctx.Done()
		return ctx.Err()
	}}})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Graph: g, Workers: 2, NewCase: func(j Job) *Case { return &Case{ID: j.ID, Input: j.Input} }}
	got, err := collect(t, r, ctx, jobs(50))
	if !errcode.Is(err, errcode.Cancelled) {
		t.Errorf("Run error = %v, want E-EVL-021", err)
	}
	if len(got) != 2 || started.Load() != 2 {
		t.Fatalf("emitted %d cases, started %d; want 2 and 2", len(got), started.Load())
	}
	for _, c := range got {
		if v := Judge(c); v.Status != StatusCancelled {
			t.Errorf("%s: status %s, want cancelled", c.ID, v.Status)
		}
	}
}

func TestMemoSharesResultButRetriesContextFailures(t *testing.T) {
	var m Memo[int]
	calls := 0
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Get(ctx, func(ctx context.Context) (int, error) { calls++; return 0, ctx.Err() })
	if err == nil {
		t.Fatal("want the context error")
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			v, err := m.Get(context.Background(), func(context.Context) (int, error) { calls++; return 42, nil })
			if v != 42 || err != nil {
				t.Errorf("Get = %d, %v", v, err)
			}
		})
	}
	wg.Wait()
	if calls != 2 {
		t.Errorf("fn ran %d times, want 2 (one cancelled, then once)", calls)
	}
}
