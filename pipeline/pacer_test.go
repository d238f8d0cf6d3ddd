package pipeline

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// fakePacer records what the runner asks of it, seat by seat; nothing
// waits. Its Ahead is ahead (nil: never).
type fakePacer struct {
	mu    sync.Mutex
	seats []*fakeSeat
	ahead chan struct{}
}

func (p *fakePacer) Seat() Seat {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &fakeSeat{p: p, n: len(p.seats)}
	p.seats = append(p.seats, s)
	return s
}

func (p *fakePacer) Ahead() <-chan struct{} {
	if p.ahead == nil {
		return nil
	}
	return p.ahead
}

// log returns seat n's calls.
func (p *fakePacer) log(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.seats[n].calls, " ")
}

type fakeSeat struct {
	p     *fakePacer
	n     int
	calls []string // guarded by p.mu
}

var turnNames = map[Turn]string{TurnStart: "start", TurnPrepare: "prepare", TurnLive: "live", TurnFinish: "finish"}

func (s *fakeSeat) note(f string, args ...any) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	s.calls = append(s.calls, fmt.Sprintf(f, args...))
}

func (s *fakeSeat) Await(_ context.Context, t Turn) bool {
	s.note("await-%s", turnNames[t])
	return false
}
func (s *fakeSeat) Release(t Turn)  { s.note("release-%s", turnNames[t]) }
func (s *fakeSeat) Waiting(on bool) { s.note("waiting=%v", on) }

// livePacedGraph is prepare → loop (live) → report: prepare runs
// prepare (nil: nothing), the loop marks a wait.
func livePacedGraph(t *testing.T, prepare func(context.Context, *Case) error) *Graph {
	t.Helper()
	mk := func(name string, run func(context.Context, *Case) error, live, despite bool, requires ...string) Node {
		n := Node{Stage: fakeStage{name: name, run: run}}
		n.Requires, n.Live, n.RunDespiteFailure = requires, live, despite
		if live {
			n.Produces = loopKey
		}
		return n
	}
	g, err := NewGraph(
		mk("prepare", prepare, false, false),
		mk("loop", func(ctx context.Context, c *Case) error {
			w := WaitOf(ctx)
			w.Begin()
			w.End()
			setExit(c, ExitOK)
			return nil
		}, true, false, "prepare"),
		mk("report", nil, false, true, "loop"),
	)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRunnerAsksThePacer: each case asks its worker's seat for its turns
// in the graph's order (start, prepare, live, finish), gives the slot back
// after the live stage, releases each attempt and then the case; a retried
// attempt that failed before its live stage asks for no slot; the Loop's
// wait reaches the seat; a worker that finds no job releases its start.
func TestRunnerAsksThePacer(t *testing.T) {
	p := &fakePacer{}
	g := livePacedGraph(t, func(_ context.Context, c *Case) error {
		if c.ID == "case-001" && c.Attempt == 1 {
			return errcode.New(errcode.IO, "a harness failure: retried")
		}
		return nil
	})
	r := &Runner{Graph: g, Workers: 1, Retries: 1, NewCase: newCaseOf, Pacer: p}
	got, err := collect(t, r, context.Background(), jobs(2))
	if err != nil || len(got) != 2 {
		t.Fatalf("got %d cases, %v; want 2", len(got), err)
	}
	if len(p.seats) != 1 {
		t.Fatalf("%d seats, want 1", len(p.seats))
	}
	full := "await-prepare await-live waiting=true waiting=false release-live await-finish release-finish"
	want := strings.Join([]string{
		"await-start", full, "release-start", // case-000
		"await-start", "await-prepare await-finish release-finish", full, "release-start", // case-001, retried
		"await-start release-start", // no job left
	}, " ")
	if got := p.log(0); got != want {
		t.Errorf("seat calls:\n got %s\nwant %s", got, want)
	}
	for _, c := range got {
		if v := c.Verdict(); v.Status != StatusPassed {
			t.Errorf("%s: %s (%v)", c.ID, v.Status, v.Err)
		}
	}
}

// TestRunnerStartsWorkersAhead: the runner starts Workers more workers
// when the pacer's Ahead is closed, and none when it stays open or is nil;
// a run that ends first leaves no goroutine behind (the bubble would
// panic).
func TestRunnerStartsWorkersAhead(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ahead, open bool
		seats       int
	}{
		{"nil", false, false, 3},
		{"never", true, false, 3},
		{"closed", true, true, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &fakePacer{}
				if tc.ahead { // made in the bubble, so that waiting on it is durable
					p.ahead = make(chan struct{})
				}
				release := make(chan struct{})
				g := livePacedGraph(t, func(ctx context.Context, _ *Case) error {
					select { // the first cases wait for the workers ahead, if any
					case <-release:
					case <-ctx.Done():
					}
					return nil
				})
				r := &Runner{Graph: g, Workers: 3, NewCase: newCaseOf, Pacer: p}
				var got []*Case
				ran := make(chan struct{})
				go func() {
					defer close(ran)
					got, _ = collect(t, r, context.Background(), jobs(20))
				}()
				synctest.Wait()
				if tc.open {
					close(p.ahead)
					synctest.Wait()
				}
				p.mu.Lock()
				seats := len(p.seats)
				p.mu.Unlock()
				close(release)
				<-ran
				if seats != tc.seats {
					t.Errorf("%d seats, want %d", seats, tc.seats)
				}
				if len(got) != 20 {
					t.Errorf("%d cases, want 20", len(got))
				}
			})
		})
	}
}

// TestRunnerWithoutPacer: a graph with a live stage and no Pacer runs
// Workers cases at a time, each straight through, and the Loop's Wait is
// the zero one.
func TestRunnerWithoutPacer(t *testing.T) {
	var zero []string
	var mu sync.Mutex
	g := livePacedGraph(t, func(ctx context.Context, c *Case) error {
		if WaitOf(ctx) != (Wait{}) {
			mu.Lock()
			zero = append(zero, c.ID)
			mu.Unlock()
		}
		return nil
	})
	r := &Runner{Graph: g, Workers: 2, NewCase: newCaseOf}
	got, err := collect(t, r, context.Background(), jobs(10))
	if err != nil || len(got) != 10 {
		t.Fatalf("got %d cases, %v; want 10", len(got), err)
	}
	if len(zero) > 0 {
		t.Errorf("cases with a Wait but no pacer: %v", zero)
	}
	Wait{}.Begin() // the zero Wait does nothing
	Wait{}.End()
}

// TestGraphRejectsBadLiveNodes: one live node at most, and not shared.
func TestGraphRejectsBadLiveNodes(t *testing.T) {
	live := func(name string, shared bool) Node {
		n := Node{Stage: fakeStage{name: name}}
		n.Live, n.Shared = true, shared
		return n
	}
	for name, nodes := range map[string][]Node{
		"two":    {live("a", false), live("b", false)},
		"shared": {live("a", true)},
	} {
		if _, err := NewGraph(nodes...); !errcode.Is(err, errcode.Internal) {
			t.Errorf("%s: NewGraph error = %v, want %s", name, err, errcode.Internal)
		}
	}
}

func newCaseOf(j Job) *Case { return &Case{ID: j.ID, Input: j.Input, Epoch: j.Epoch} }
