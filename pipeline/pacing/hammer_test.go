package pacing

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// TestAdaptiveHammer runs many cases whose stages fail, wait for their
// model or not, and take random times, with retries and some runs
// interrupted, and checks the pacer's books: every case comes out once,
// never more than Workers cases are live, Run returns, and at the end no
// slot, claim, busy mark or case is left counted. Each seed runs in a
// bubble (its quiet moments on the bubble's clock, so a slow model's run
// starts the workers ahead) and on the real clock (where the quiet timer
// fires while cases come and go; nothing is ordered by it).
func TestAdaptiveHammer(t *testing.T) {
	for seed := range 12 {
		t.Run(fmt.Sprint("seed=", seed, "/bubble"), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { hammer(t, seed, true) })
		})
		t.Run(fmt.Sprint("seed=", seed, "/clock"), func(t *testing.T) { hammer(t, seed, false) })
	}
}

var errStalled = errors.New("the run stalled")

func hammer(t *testing.T, seed int, bubble bool) {
	workers := 1 + seed%5
	// A slow model's long quiet moments start the workers ahead.
	slow := seed%4 == 1
	interrupted := seed%3 == 2
	rnd := func(c *pipeline.Case, salt int) int { // deterministic per case
		h := 0
		for _, b := range c.ID {
			h = h*31 + int(b)
		}
		return (h + salt*7919 + seed*104729 + c.Attempt) % 100
	}
	var live peakCounter
	g := pacedGraph(t,
		func(_ context.Context, c *pipeline.Case) error {
			if rnd(c, 1) < 10 {
				return errcode.New(errcode.RunCapsule, "prepare failed")
			}
			return nil
		},
		func(ctx context.Context, c *pipeline.Case) error {
			live.enter()
			defer live.leave()
			d := time.Duration(rnd(c, 2)%7) * time.Millisecond
			if slow {
				d += 30 * time.Millisecond
			}
			if slow || rnd(c, 3) < 60 {
				return waitModel(d)(ctx, c)
			}
			for range rnd(c, 4) % 5 { // busy, as a CPU-bound session
				runtime.Gosched()
			}
			return nil
		},
		nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	if interrupted {
		time.AfterFunc(30*time.Millisecond, func() { cancel(pipeline.ErrInterrupted) })
	}
	p := NewAdaptive(workers, nil)
	r := &pipeline.Runner{Graph: g, Workers: workers, Retries: 1, Timeout: time.Second, NewCase: newCase, Pacer: p}
	js := jobs(60)
	var got []*pipeline.Case
	var err error
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		got, err = collect(r, ctx, js)
	}()
	select {
	case <-ran:
	case <-time.After(20 * time.Second): // in a bubble: every goroutine blocked
		p.mu.Lock()
		books := fmt.Sprintf("free %d, claims %d, busy %d, cases %d, slotQ %d, gateQ %d, startQ %d",
			p.free, p.claims, p.busy, p.cases, len(p.slotQ), len(p.gateQ), len(p.startQ))
		p.mu.Unlock()
		cancel(errStalled) // so that the run's goroutines end
		<-ran
		t.Fatalf("Run did not return in 20 s: %s", books)
	}
	if !interrupted && err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range got {
		if seen[c.ID] {
			t.Errorf("%s emitted twice", c.ID)
		}
		seen[c.ID] = true
	}
	if !interrupted && len(got) != len(js) {
		t.Errorf("%d cases emitted, want %d", len(got), len(js))
	}
	if n := live.peak.Load(); n > int64(workers) {
		t.Errorf("peak live cases %d, want at most %d", n, workers)
	}
	p.mu.Lock()
	opened := p.aheadOpen
	p.mu.Unlock()
	if slow && !interrupted && bubble && !opened {
		t.Errorf("a slow model's run started no worker ahead")
	}
	checkBooks(t, p, workers)
}
