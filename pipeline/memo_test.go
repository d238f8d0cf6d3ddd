package pipeline

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestMemoHammer: many cases at once, some with contexts that end while
// they wait; the work runs exactly once and everyone who did not give up
// gets its result. Run with -race. Each round is a synctest bubble: every
// case is waiting (synctest.Wait) when the bubble's clock passes the
// quick ones' deadline, and only then does the work finish.
func TestMemoHammer(t *testing.T) {
	for round := 0; round < 50; round++ {
		synctest.Test(t, func(t *testing.T) { memoHammerRound(t, round) })
	}
}

func memoHammerRound(t *testing.T, round int) {
	var m Memo[int]
	var runs atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	results := make([]int, 64)
	errs := make([]error, 64)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			if i%4 == 3 { // a case that gives up quickly
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Millisecond)
				defer cancel()
			}
			results[i], errs[i] = m.Get(ctx, func(context.Context) (int, error) {
				runs.Add(1)
				<-release
				return 42, nil
			})
			_, _, _ = m.Stored()
		}()
	}
	synctest.Wait()
	time.Sleep(2 * time.Millisecond) // the bubble's clock: the quick cases' deadlines pass
	synctest.Wait()
	close(release)
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Fatalf("round %d: the work ran %d times, want 1", round, n)
	}
	for i := range results {
		if errs[i] == nil && results[i] != 42 {
			t.Fatalf("round %d: case %d got %d", round, i, results[i])
		}
		if errs[i] != nil && !errors.Is(errs[i], context.DeadlineExceeded) {
			t.Fatalf("round %d: case %d: %v", round, i, errs[i])
		}
	}
	if v, ok, err := m.Stored(); !ok || err != nil || v != 42 {
		t.Fatalf("round %d: Stored = %d, %v, %v", round, v, ok, err)
	}
}

// TestMemoWaiterHonoursItsContext: while one case works (and would work
// for ever), a second case's cancellation returns at once with its cause.
func TestMemoWaiterHonoursItsContext(t *testing.T) {
	var m Memo[string]
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	go m.Get(context.Background(), func(context.Context) (string, error) {
		close(started)
		<-release
		return "slow", nil
	})
	<-started
	cause := errcode.New(errcode.Timeout, "case deadline")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	done := make(chan error, 1)
	go func() {
		_, err := m.Get(ctx, func(context.Context) (string, error) {
			t.Error("a waiter ran the work")
			return "", nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		if errcode.Code(err) != errcode.Timeout {
			t.Fatalf("waiter got %v, want its context's cause", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiting case did not honour its context")
	}
	if _, ok, _ := m.Stored(); ok {
		t.Fatal("Stored reports a result while the work still runs")
	}
}

// TestMemoKeepsAndDiscards: a failure caused by the worker's own context
// is discarded (the next case tries again); any other failure is kept for
// every case; a panic is not kept and a waiter takes over the work.
func TestMemoKeepsAndDiscards(t *testing.T) {
	t.Run("own-context", func(t *testing.T) {
		var m Memo[int]
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := m.Get(ctx, func(ctx context.Context) (int, error) { return 0, ctx.Err() }); err == nil {
			t.Fatal("want the cancellation")
		}
		if _, ok, _ := m.Stored(); ok {
			t.Fatal("a cancelled try was kept")
		}
		v, err := m.Get(context.Background(), func(context.Context) (int, error) { return 7, nil })
		if v != 7 || err != nil {
			t.Fatalf("retry: %d, %v", v, err)
		}
	})
	t.Run("kept-failure", func(t *testing.T) {
		var m Memo[int]
		bad := errcode.New(errcode.RunLock, "mismatch")
		for i := 0; i < 3; i++ {
			_, err := m.Get(context.Background(), func(context.Context) (int, error) {
				if i > 0 {
					t.Error("a kept failure was computed again")
				}
				return 0, bad
			})
			if errcode.Code(err) != errcode.RunLock {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		if _, ok, err := m.Stored(); !ok || errcode.Code(err) != errcode.RunLock {
			t.Fatalf("Stored = %v, %v", ok, err)
		}
	})
	t.Run("panic", func(t *testing.T) { synctest.Test(t, memoPanic) })
}

// memoPanic: a worker's panic wakes the cases waiting on its call, and
// one of them computes the result.
func memoPanic(t *testing.T) {
	var m Memo[int]
	started := make(chan struct{})
	waiter := make(chan int, 1)
	go func() {
		<-started
		v, _ := m.Get(context.Background(), func(context.Context) (int, error) { return 9, nil })
		waiter <- v
	}()
	func() {
		defer func() { _ = recover() }()
		_, _ = m.Get(context.Background(), func(context.Context) (int, error) {
			close(started)
			synctest.Wait() // the waiter waits on this call
			panic("boom")
		})
	}()
	select {
	case v := <-waiter:
		if v != 9 {
			t.Fatalf("waiter got %d", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiter hung after the worker panicked")
	}
}

// TestMemoStoredNeverStores: reading before any work stores nothing, so
// the first real Get still computes.
func TestMemoStoredNeverStores(t *testing.T) {
	var m Memo[*int]
	if v, ok, err := m.Stored(); ok || v != nil || err != nil {
		t.Fatalf("Stored on an empty memo = %v, %v, %v", v, ok, err)
	}
	x := 1
	v, err := m.Get(context.Background(), func(context.Context) (*int, error) { return &x, nil })
	if err != nil || v != &x {
		t.Fatalf("Get after Stored = %v, %v", v, err)
	}
}
