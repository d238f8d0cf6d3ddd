package pacing

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// stageFunc is a fake stage: run, or nothing when nil.
type stageFunc struct {
	name string
	run  func(context.Context, *pipeline.Case) error
}

func (s stageFunc) Name() string { return s.name }

func (s stageFunc) Run(ctx context.Context, c *pipeline.Case) error {
	if s.run == nil {
		return nil
	}
	return s.run(ctx, c)
}

// passed is the fake live stage's result: the case passed.
type passed struct{}

func (passed) Grade() (bool, bool) { return true, true }

var loopKey = pipeline.NewKey[passed]("loop")

// node places s in a graph. The fields are set one by one, so the test
// does not depend on how Node groups them.
func node(s stageFunc, requires []string, live, despite bool) pipeline.Node {
	n := pipeline.Node{Stage: s}
	n.Requires, n.Live, n.RunDespiteFailure = requires, live, despite
	if live {
		n.Produces = loopKey
	}
	return n
}

// pacedGraph is prepare → loop (live) → report, with the stages' bodies
// given; a nil body does nothing.
func pacedGraph(t *testing.T, prepare, live, report func(context.Context, *pipeline.Case) error) *pipeline.Graph {
	t.Helper()
	g, err := pipeline.NewGraph(
		node(stageFunc{name: "prepare", run: prepare}, nil, false, false),
		node(stageFunc{name: "loop", run: func(ctx context.Context, c *pipeline.Case) error {
			if live != nil {
				if err := live(ctx, c); err != nil {
					return err
				}
			}
			pipeline.Store(c, loopKey, passed{})
			return nil
		}}, []string{"prepare"}, true, false),
		node(stageFunc{name: "report", run: report}, []string{"loop"}, false, true),
	)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// waitModel is a live stage that waits for a model for d, as the Loop
// does around an HTTP call (pipeline.Wait).
func waitModel(d time.Duration) func(context.Context, *pipeline.Case) error {
	return func(ctx context.Context, _ *pipeline.Case) error {
		w := pipeline.WaitOf(ctx)
		w.Begin()
		defer w.End()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
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

func newCase(j pipeline.Job) *pipeline.Case {
	return &pipeline.Case{ID: j.ID, Input: j.Input, Epoch: j.Epoch}
}

func jobs(n int) []pipeline.Job {
	js := make([]pipeline.Job, n)
	for i := range js {
		js[i] = pipeline.Job{ID: fmt.Sprintf("case-%03d", i), Epoch: 1}
	}
	return js
}

// collect runs r over js and returns every case it sent.
func collect(r *pipeline.Runner, ctx context.Context, js []pipeline.Job) ([]*pipeline.Case, error) {
	done := make(chan *pipeline.Case)
	var got []*pipeline.Case
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

// events is a log of what the stages did, in order.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) note(s string) {
	e.mu.Lock()
	e.log = append(e.log, s)
	e.mu.Unlock()
}

func (e *events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return fmt.Sprintf("%q", e.log)
}

// waves runs 6×workers cases under pacer, each live for one 60 ms model
// wait on the bubble's clock (call it in a synctest bubble), checks that
// every case passed exactly once, that at most workers were live at once
// and at most inFlight in flight (both reached), and that the run took six
// waves back to back.
func waves(t *testing.T, workers int, pacer pipeline.Pacer, inFlight int) {
	t.Helper()
	var live, cases peakCounter
	g := pacedGraph(t,
		func(context.Context, *pipeline.Case) error { cases.enter(); return nil },
		func(ctx context.Context, c *pipeline.Case) error {
			live.enter()
			defer live.leave()
			return waitModel(60*time.Millisecond)(ctx, c)
		},
		func(context.Context, *pipeline.Case) error { cases.leave(); return nil })
	r := &pipeline.Runner{Graph: g, Workers: workers, NewCase: newCase, Pacer: pacer}
	start := time.Now()
	got, err := collect(r, context.Background(), jobs(6*workers))
	if err != nil || len(got) != 6*workers {
		t.Fatalf("got %d cases, %v; want %d", len(got), err, 6*workers)
	}
	seen := map[string]bool{}
	for _, c := range got {
		if v := pipeline.Judge(c); v.Status != pipeline.StatusPassed || seen[c.ID] {
			t.Errorf("%s: %s (%v), seen before %v", c.ID, v.Status, v.Err, seen[c.ID])
		}
		seen[c.ID] = true
	}
	if p := live.peak.Load(); p != int64(workers) {
		t.Errorf("peak live cases = %d, want %d", p, workers)
	}
	if p := cases.peak.Load(); p != int64(inFlight) {
		t.Errorf("peak cases in flight = %d, want %d", p, inFlight)
	}
	if d := time.Since(start); d != 6*60*time.Millisecond {
		t.Errorf("run took %v on the bubble's clock, want %v", d, 6*60*time.Millisecond)
	}
}
