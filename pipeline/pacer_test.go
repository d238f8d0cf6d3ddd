package pipeline

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// pacedGraph is prepare → loop (live) → report, with the stages' bodies
// given; a nil body does nothing.
func pacedGraph(t *testing.T, prepare, live, report func(context.Context, *Case) error) *Graph {
	t.Helper()
	g, err := NewGraph(
		Node{Stage: fakeStage{name: "prepare", run: prepare}},
		Node{Stage: fakeStage{name: "loop", run: func(ctx context.Context, c *Case) error {
			if live != nil {
				if err := live(ctx, c); err != nil {
					return err
				}
			}
			setExit(c, ExitOK)
			return nil
		}}, Decl: Decl{Requires: []string{"prepare"}, Produces: loopKey, Live: true}},
		Node{Stage: fakeStage{name: "report", run: report}, Decl: Decl{Requires: []string{"loop"}, RunDespiteFailure: true}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// waitModel is a live stage that waits for a model for d, as the Loop
// does around an HTTP call.
func waitModel(d time.Duration) func(context.Context, *Case) error {
	return func(ctx context.Context, _ *Case) error {
		w := WaitOf(ctx)
		w.Begin()
		defer w.End()
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// peakCounter counts what is in a section and keeps the most at once.
type peakCounter struct{ now, peak atomic.Int64 }

func (p *peakCounter) enter() {
	n := p.now.Add(1)
	for {
		old := p.peak.Load()
		if n <= old || p.peak.CompareAndSwap(old, n) {
			return
		}
	}
}

func (p *peakCounter) leave() { p.now.Add(-1) }

func newCase(j Job) *Case { return &Case{ID: j.ID, Input: j.Input, Epoch: j.Epoch} }

// TestPacerBoundsLiveCasesAndPreparesAhead: with a model that makes every
// session wait, at most Workers cases are in the live stage at once, and
// the next ones are prepared meanwhile (more cases than Workers in flight,
// never more than twice as many), and every case passes once.
func TestPacerBoundsLiveCasesAndPreparesAhead(t *testing.T) {
	for _, workers := range []int{1, 3, 16} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			var live, cases peakCounter
			g := pacedGraph(t,
				func(context.Context, *Case) error { cases.enter(); return nil },
				func(ctx context.Context, c *Case) error {
					live.enter()
					defer live.leave()
					return waitModel(60*time.Millisecond)(ctx, c)
				},
				func(context.Context, *Case) error { cases.leave(); return nil })
			r := &Runner{Graph: g, Workers: workers, NewCase: newCase}
			got, err := collect(t, r, context.Background(), jobs(6*workers))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 6*workers {
				t.Fatalf("got %d cases, want %d", len(got), 6*workers)
			}
			for _, c := range got {
				if v := Judge(c); v.Status != StatusPassed {
					t.Errorf("%s: %s (%v)", c.ID, v.Status, v.Err)
				}
			}
			if p := live.peak.Load(); p != int64(workers) {
				t.Errorf("peak live cases = %d, want %d", p, workers)
			}
			if p := cases.peak.Load(); p <= int64(workers) || p > 2*int64(workers) {
				t.Errorf("peak cases in flight = %d, want more than %d (prepared ahead) and at most %d", p, workers, 2*workers)
			}
		})
	}
}

// TestPacerHandsTheSlotBeforeFinishing: when a live case ends, the case
// prepared behind it takes its slot before the ended case's Report runs.
func TestPacerHandsTheSlotBeforeFinishing(t *testing.T) {
	var mu sync.Mutex
	var events []string
	note := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
	}
	g := pacedGraph(t, nil,
		func(ctx context.Context, c *Case) error {
			note("live " + c.ID)
			return waitModel(100*time.Millisecond)(ctx, c)
		},
		func(_ context.Context, c *Case) error { note("report " + c.ID); return nil })
	r := &Runner{Graph: g, Workers: 1, NewCase: newCase}
	if _, err := collect(t, r, context.Background(), jobs(3)); err != nil {
		t.Fatal(err)
	}
	want := []string{"live case-000", "live case-001", "report case-000", "live case-002", "report case-001", "report case-002"}
	if fmt.Sprint(events) != fmt.Sprint(want) {
		t.Errorf("order = %q, want %q", events, want)
	}
}

// TestPacerNeverQuietRunsNoCaseAhead: a run whose live cases never wait
// (replayed, CPU-bound) has nothing to gain from preparing ahead: at most
// Workers cases are in flight, as without a pacer.
func TestPacerNeverQuietRunsNoCaseAhead(t *testing.T) {
	var cases peakCounter
	g := pacedGraph(t,
		func(context.Context, *Case) error { cases.enter(); return nil },
		func(context.Context, *Case) error {
			for start := time.Now(); time.Since(start) < 200*time.Microsecond; { //nolint:revive // busy, as a CPU-bound session
			}
			return nil
		},
		func(context.Context, *Case) error { cases.leave(); return nil })
	// A quiet moment is 10 s without foreground work: never, in this run
	// (a scheduler's hiccup of 2 ms under the race detector would be one).
	r := &Runner{Graph: g, Workers: 2, NewCase: newCase, quietAfter: 10 * time.Second}
	got, err := collect(t, r, context.Background(), jobs(200))
	if err != nil || len(got) != 200 {
		t.Fatalf("got %d cases, %v; want 200", len(got), err)
	}
	if p := cases.peak.Load(); p > 2 {
		t.Errorf("peak cases in flight = %d, want at most 2", p)
	}
}

// TestPacerTimeoutCountsOnlyTheStages: a prepared case waits for its slot
// longer than its --timeout, and still passes: --timeout bounds the time
// its stages run. A case whose own stage runs too long times out.
func TestPacerTimeoutCountsOnlyTheStages(t *testing.T) {
	g := pacedGraph(t, nil, func(ctx context.Context, c *Case) error {
		d := 100 * time.Millisecond // a case prepared ahead waits about as long for its slot
		if c.ID == "case-003" {
			d = time.Second
		}
		return waitModel(d)(ctx, c)
	}, nil)
	r := &Runner{Graph: g, Workers: 1, Timeout: 150 * time.Millisecond, NewCase: newCase}
	got, err := collect(t, r, context.Background(), jobs(5))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got {
		want := StatusPassed
		if c.ID == "case-003" {
			want = StatusTimeout
		}
		if v := Judge(c); v.Status != want {
			t.Errorf("%s: status %s, want %s (%v)", c.ID, v.Status, want, v.Err)
		}
		if c.ID == "case-003" && !errcode.Is(Judge(c).Err, errcode.Timeout) {
			t.Errorf("%s: error %v, want %s", c.ID, Judge(c).Err, errcode.Timeout)
		}
	}
}

// TestPacerInterrupt cancels the run while cases wait for their model and
// others wait for a slot or a quiet moment: Run returns, every case that
// started is emitted once and cancelled, and no case starts afterwards.
func TestPacerInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var live atomic.Int64
	g := pacedGraph(t, nil, func(ctx context.Context, c *Case) error {
		if live.Add(1) == 4 {
			cancel(ErrInterrupted)
		}
		return waitModel(time.Hour)(ctx, c)
	}, nil)
	r := &Runner{Graph: g, Workers: 4, NewCase: newCase}
	got, err := collect(t, r, ctx, jobs(100))
	if !errcode.Is(err, errcode.Cancelled) {
		t.Errorf("Run error = %v, want %s", err, errcode.Cancelled)
	}
	if len(got) < 4 || len(got) > 8 {
		t.Fatalf("emitted %d cases, want 4 to 8 (the live ones and those prepared ahead)", len(got))
	}
	seen := map[string]bool{}
	for _, c := range got {
		if seen[c.ID] {
			t.Errorf("%s emitted twice", c.ID)
		}
		seen[c.ID] = true
		if v := Judge(c); v.Status != StatusCancelled {
			t.Errorf("%s: status %s, want cancelled", c.ID, v.Status)
		}
	}
}

// TestGraphRejectsBadLiveNodes: one live node at most, and not shared.
func TestGraphRejectsBadLiveNodes(t *testing.T) {
	for name, nodes := range map[string][]Node{
		"two":    {{Stage: fakeStage{name: "a"}, Decl: Decl{Live: true}}, {Stage: fakeStage{name: "b"}, Decl: Decl{Live: true}}},
		"shared": {{Stage: fakeStage{name: "a"}, Decl: Decl{Live: true, Shared: true}}},
	} {
		if _, err := NewGraph(nodes...); !errcode.Is(err, errcode.Internal) {
			t.Errorf("%s: NewGraph error = %v, want %s", name, err, errcode.Internal)
		}
	}
}

// TestPacerOnQuiet: the runner's OnQuiet runs when every live case waits
// for its model, and never in a run whose cases never wait.
func TestPacerOnQuiet(t *testing.T) {
	for _, waits := range []bool{true, false} {
		var calls atomic.Int64
		live := func(context.Context, *Case) error { return nil }
		if waits {
			live = waitModel(20 * time.Millisecond)
		}
		r := &Runner{Graph: pacedGraph(t, nil, live, nil), Workers: 2, NewCase: newCase, OnQuiet: func() { calls.Add(1) }}
		if !waits {
			r.quietAfter = 10 * time.Second
		}
		if _, err := collect(t, r, context.Background(), jobs(10)); err != nil {
			t.Fatal(err)
		}
		if got := calls.Load(); (got > 0) != waits {
			t.Errorf("waits=%v: OnQuiet ran %d times", waits, got)
		}
	}
}

// TestPacerHammer runs many cases whose stages fail, wait for their
// model or not, and take random times, with retries and some runs
// interrupted, and checks the pacer's books: every case comes out once,
// never more than Workers cases are live, Run returns, and at the end no
// slot, claim, busy mark or case is left counted.
func TestPacerHammer(t *testing.T) {
	for seed := range 12 {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			workers := 1 + seed%5
			// A slow model's long quiet moments start the workers ahead.
			slow := seed%4 == 1
			rnd := func(c *Case, salt int) int { // deterministic per case
				h := 0
				for _, b := range c.ID {
					h = h*31 + int(b)
				}
				return (h + salt*7919 + seed*104729 + c.Attempt) % 100
			}
			var live peakCounter
			var p *pacer
			g := pacedGraph(t,
				func(_ context.Context, c *Case) error {
					if rnd(c, 1) < 10 {
						return errcode.New(errcode.RunCapsule, "prepare failed")
					}
					return nil
				},
				func(ctx context.Context, c *Case) error {
					live.enter()
					defer live.leave()
					d := time.Duration(rnd(c, 2)%7) * time.Millisecond
					if slow {
						d += 30 * time.Millisecond
					}
					if slow || rnd(c, 3) < 60 {
						return waitModel(d)(ctx, c)
					}
					for start := time.Now(); time.Since(start) < d/4; { //nolint:revive // busy, as a CPU-bound session
					}
					return nil
				},
				nil)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if seed%3 == 2 {
				time.AfterFunc(30*time.Millisecond, func() { cancel(ErrInterrupted) })
			}
			r := &Runner{Graph: g, Workers: workers, Retries: 1, Timeout: time.Second, NewCase: newCase}
			r.onPacer = func(pp *pacer) { p = pp }
			js := jobs(60)
			var got []*Case
			var err error
			ran := make(chan struct{})
			go func() {
				defer close(ran)
				got, err = collect(t, r, ctx, js)
			}()
			select {
			case <-ran:
			case <-time.After(20 * time.Second):
				p.mu.Lock()
				t.Fatalf("Run did not return: free %d, claims %d, busy %d, cases %d, slotQ %d, gateQ %d, startQ %d",
					p.free, p.claims, p.busy, p.cases, len(p.slotQ), len(p.gateQ), len(p.startQ))
			}
			if seed%3 != 2 && err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, c := range got {
				if seen[c.ID] {
					t.Errorf("%s emitted twice", c.ID)
				}
				seen[c.ID] = true
			}
			if seed%3 != 2 && len(got) != len(js) {
				t.Errorf("%d cases emitted, want %d", len(got), len(js))
			}
			if n := live.peak.Load(); n > int64(workers) {
				t.Errorf("peak live cases %d, want at most %d", n, workers)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if slow && seed%3 != 2 && !p.aheadOpen {
				t.Errorf("a slow model's run started no worker ahead")
			}
			if p.free != workers || p.claims != 0 || p.busy != 0 || p.cases != 0 || len(p.slotQ) != 0 {
				t.Errorf("pacer books at the end: free %d (want %d), claims %d, busy %d, cases %d, slotQ %d; want 0",
					p.free, workers, p.claims, p.busy, p.cases, len(p.slotQ))
			}
		})
	}
}
