package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestRetriesHarnessErrorsOnly: a provider that fails the first attempt of
// every other case ends with every such case passed on its second attempt,
// the failed attempt kept; a model failure and a timeout are never retried.
func TestRetriesHarnessErrorsOnly(t *testing.T) {
	var mu sync.Mutex
	attempts := map[string]int{}
	g, err := NewGraph(Node{Stage: fakeStage{name: "loop", run: func(ctx context.Context, c *Case) error {
		mu.Lock()
		attempts[c.ID]++
		n := attempts[c.ID]
		mu.Unlock()
		var idx int
		fmt.Sscanf(c.ID, "case-%d", &idx)
		switch {
		case idx%5 == 1: // the model's failure
			setExit(c, ExitFailed)
			return nil
		case idx%5 == 3: // out of time
			<-ctx.Done()
			return ctx.Err()
		case idx%2 == 0 && n == 1: // a provider outage on the first attempt
			return errcode.New("E-INF-001", "provider unavailable")
		}
		setExit(c, ExitOK)
		return nil
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var backoffs []int
	r := &Runner{Graph: g, Workers: 4, Timeout: 20 * time.Millisecond, Retries: 2,
		Backoff: func(n int) time.Duration {
			mu.Lock()
			backoffs = append(backoffs, n)
			mu.Unlock()
			return time.Millisecond
		},
		NewCase: func(j Job) *Case { return &Case{ID: j.ID, Input: j.Input, Epoch: j.Epoch} }}
	got, err := collect(t, r, context.Background(), jobs(20))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 20 {
		t.Fatalf("got %d cases, want 20", len(got))
	}
	for _, c := range got {
		var idx int
		fmt.Sscanf(c.ID, "case-%d", &idx)
		st := Judge(c).Status
		wantStatus, wantAttempt := StatusPassed, 1
		switch {
		case idx%5 == 1:
			wantStatus = StatusFailed
		case idx%5 == 3:
			wantStatus = StatusTimeout
		case idx%2 == 0:
			wantAttempt = 2
		}
		if st != wantStatus || c.Attempt != wantAttempt || len(c.Earlier) != wantAttempt-1 {
			t.Errorf("%s: status %s attempt %d earlier %d; want %s, %d, %d", c.ID, st, c.Attempt, len(c.Earlier), wantStatus, wantAttempt, wantAttempt-1)
		}
		for _, e := range c.Earlier {
			if Judge(e).Status != StatusError || e.Attempt != 1 {
				t.Errorf("%s: earlier attempt %d is %s, want attempt 1 in error", c.ID, e.Attempt, Judge(e).Status)
			}
		}
	}
	if len(backoffs) != 6 { // cases 0, 2, 4, 10, 12, 14
		t.Errorf("backed off %d times (%v), want 6", len(backoffs), backoffs)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	g, err := NewGraph(Node{Stage: fakeStage{name: "loop", run: func(context.Context, *Case) error {
		return errcode.New("E-INF-001", "provider unavailable")
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var asked []int // the attempts NewCase was asked for (it names their session folders' links)
	r := &Runner{Graph: g, Workers: 1, Retries: 3, NewCase: func(j Job) *Case {
		asked = append(asked, j.Attempt)
		return &Case{ID: j.ID, Input: j.Input}
	}}
	got, _ := collect(t, r, context.Background(), jobs(1))
	if c := got[0]; c.Attempt != 4 || len(c.Earlier) != 3 || Judge(c).Status != StatusError {
		t.Errorf("attempt %d, earlier %d, status %s; want 4, 3, error", c.Attempt, len(c.Earlier), Judge(c).Status)
	}
	if want := []int{1, 2, 3, 4}; !slices.Equal(asked, want) {
		t.Errorf("NewCase was asked for attempts %v, want %v", asked, want)
	}
}

func TestExpBackoff(t *testing.T) {
	b := ExpBackoff(time.Second, 5*time.Second)
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 5 * time.Second, 9: 5 * time.Second} {
		if got := b(n); got != want {
			t.Errorf("backoff(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestInterruptCutsRetriesShort: an interrupt during the backoff ends the
// case in error with EndCause set, so a resumed run runs it again.
func TestInterruptCutsRetriesShort(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	g, err := NewGraph(Node{Stage: fakeStage{name: "loop", run: func(context.Context, *Case) error {
		return errcode.New("E-INF-001", "provider unavailable")
	}}})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Graph: g, Workers: 1, Retries: 3,
		Backoff: func(int) time.Duration { cancel(ErrInterrupted); return time.Hour },
		NewCase: func(j Job) *Case { return &Case{ID: j.ID, Input: j.Input} }}
	got, _ := collect(t, r, ctx, jobs(1))
	if len(got) != 1 {
		t.Fatalf("got %d cases, want 1", len(got))
	}
	c := got[0]
	if Judge(c).Status != StatusError || c.Attempt != 1 || !errcode.Is(c.EndCause, errcode.Cancelled) {
		t.Errorf("status %s, attempt %d, end cause %v; want error, 1, the interrupt", Judge(c).Status, c.Attempt, c.EndCause)
	}
}
