package pacing

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// TestSemaphoreBoundsLiveCases: at most Workers cases are live, and in
// flight: nothing is prepared ahead, each worker runs its case's stages
// straight through, so a run of waiting cases takes one model latency a
// wave; every case passes once.
func TestSemaphoreBoundsLiveCases(t *testing.T) {
	for _, workers := range []int{1, 3, 16} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { waves(t, workers, NewSemaphore(workers), workers) })
		})
	}
}

// TestSemaphoreSeat: a seat takes a slot for TurnLive only, waits while
// the slots are taken, gives up when its context ends, and gives its slot
// back after the live stage or after an attempt that still holds it.
func TestSemaphoreSeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := NewSemaphore(1)
		if s.Ahead() != nil {
			t.Error("Ahead is not nil")
		}
		a, b := s.Seat(), s.Seat()
		for _, turn := range []pipeline.Turn{pipeline.TurnStart, pipeline.TurnPrepare, pipeline.TurnFinish} {
			if b.Await(ctx, turn) {
				t.Errorf("Await(%d) waited", turn)
			}
		}
		if a.Await(ctx, pipeline.TurnLive) {
			t.Error("the first seat waited for a free slot")
		}
		a.Waiting(true) // ignored
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if !b.Await(cctx, pipeline.TurnLive) || cctx.Err() == nil {
			t.Fatal("the second seat did not wait for the taken slot until its context ended")
		}
		got := make(chan bool)
		go func() { got <- b.Await(ctx, pipeline.TurnLive) }()
		synctest.Wait()
		a.Release(pipeline.TurnLive)
		if !<-got {
			t.Error("the second seat got the slot without waiting")
		}
		b.Release(pipeline.TurnFinish) // an attempt that still holds its slot
		b.Release(pipeline.TurnFinish) // nothing held: nothing given back
		if a.Await(ctx, pipeline.TurnLive) {
			t.Error("the slot was not given back")
		}
		a.Release(pipeline.TurnStart)
		a.Release(pipeline.TurnLive)
		if n := len(s.slots); n != 0 {
			t.Errorf("%d slots held at the end, want 0", n)
		}
	})
}

// TestSemaphoreFailedPrepareFreesNothingItDidNotTake: cases that fail
// before their live stage hold no slot; every case comes out.
func TestSemaphoreFailedPrepareFreesNothingItDidNotTake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := pacedGraph(t, func(_ context.Context, c *pipeline.Case) error {
			if c.ID[len(c.ID)-1]%2 == 0 {
				return errcode.New(errcode.RunCapsule, "prepare failed")
			}
			return nil
		}, waitModel(time.Millisecond), nil)
		s := NewSemaphore(2)
		r := &pipeline.Runner{Graph: g, Workers: 2, Retries: 1, NewCase: newCase, Pacer: s}
		got, err := collect(r, context.Background(), jobs(20))
		if err != nil || len(got) != 20 {
			t.Fatalf("got %d cases, %v; want 20", len(got), err)
		}
		if n := len(s.slots); n != 0 {
			t.Errorf("%d slots held at the end, want 0", n)
		}
	})
}
