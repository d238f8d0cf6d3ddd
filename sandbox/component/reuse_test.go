package component

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// freshAnswer is what testdata/stateful.wat answers on a fresh instance.
var freshAnswer = "Afresh-instance!!" + strings.Repeat("\x00", 16)

// runStateful calls the stateful tool with input and returns its data.
func runStateful(t testing.TB, c *Component, env Env, input string) (string, error) {
	t.Helper()
	r, err := c.RunTool(context.Background(), env, ToolInput{Data: str(input)})
	if err != nil {
		return "", err
	}
	if r.Data == nil {
		return "", errors.New("no data")
	}
	return *r.Data, nil
}

func idle(c *Component) int {
	c.reuse.mu.Lock()
	defer c.reuse.mu.Unlock()
	return len(c.reuse.idle)
}

// TestReuseStartsFresh: every call on a reused instance sees what a fresh
// instance shows, whatever the calls before it left in memory (a page
// instantiation wrote, a page it left zero, the input's own bytes) and in
// mutable globals; with wazero's memory and with the limiter's mapping.
func TestReuseStartsFresh(t *testing.T) {
	for _, env := range []Env{{Name: "heap"}, {Name: "mapped", MemoryLimitBytes: 64 << 20}} {
		t.Run(env.Name, func(t *testing.T) {
			c := compileFixture(t, newRuntime(t), "stateful", WorldTool)
			if c.reuse == nil {
				t.Fatalf("stateful is not reusable: %s", c.reuseWhy)
			}
			for i := range 50 {
				got, err := runStateful(t, c, env, fmt.Sprintf("ksecret-%d-of-the-call", i))
				if err != nil {
					t.Fatal(err)
				}
				if got != freshAnswer {
					t.Fatalf("call %d: got %q, want %q", i, got, freshAnswer)
				}
			}
			if got := c.reuse.reused.Load(); got != 49 {
				t.Errorf("got %d calls on a reused instance, want 49", got)
			}
		})
	}
}

// TestReuseConcurrent: concurrent calls each get an instance of their own
// and a fresh start (run with -race).
func TestReuseConcurrent(t *testing.T) {
	c := compileFixture(t, newRuntime(t), "stateful", WorldTool)
	var wg sync.WaitGroup
	errs := make(chan error, 8*40)
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				got, err := runStateful(t, c, Env{MemoryLimitBytes: 16 << 20}, fmt.Sprintf("k%d/%d", g, i))
				if err == nil && got != freshAnswer {
					err = fmt.Errorf("goroutine %d call %d: got %q", g, i, got)
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if c.reuse.reused.Load() == 0 {
		t.Error("no call was served by a reused instance")
	}
	if n := idle(c); n < 1 || n > 8 {
		t.Errorf("got %d idle instances, want 1 to 8", n)
	}
}

// TestReuseDiscards: an instance whose call trapped or whose memory grew
// is never reused, and the next call still starts fresh.
func TestReuseDiscards(t *testing.T) {
	tests := []struct {
		name, input string
		trap        bool
	}{
		{name: "trap", input: "tleft-by-a-trap", trap: true},
		{name: "memory grew", input: "gleft-by-growth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compileFixture(t, newRuntime(t), "stateful", WorldTool)
			env := Env{Name: "stateful", MemoryLimitBytes: 16 << 20}
			if _, err := runStateful(t, c, env, "kwarm"); err != nil {
				t.Fatal(err)
			}
			if n := idle(c); n != 1 {
				t.Fatalf("got %d idle instances after a clean call, want 1", n)
			}
			_, err := runStateful(t, c, env, tt.input)
			if tt.trap && (!errcode.Is(err, errcode.RunCapsule) || sandbox.KindOf(err) != sandbox.ErrTrap) {
				t.Fatalf("got %v, want E-RUN-001 trap", err)
			}
			if !tt.trap && err != nil {
				t.Fatal(err)
			}
			if n := idle(c); n != 0 {
				t.Fatalf("got %d idle instances after the call, want 0: it was kept", n)
			}
			got, err := runStateful(t, c, env, "k")
			if err != nil || got != freshAnswer {
				t.Fatalf("next call: got %q, %v, want %q", got, err, freshAnswer)
			}
		})
	}
}

// TestReuseRefused: a module whose code can change a table is never
// reused (its instances are made afresh), and says why.
func TestReuseRefused(t *testing.T) {
	c := compileFixture(t, newRuntime(t), "stateful_table", WorldTool)
	if c.reuse != nil || !strings.Contains(c.reuseWhy, "table.set") {
		t.Fatalf("got reuse %v (%q), want none because of table.set", c.reuse != nil, c.reuseWhy)
	}
	for i := range 3 {
		got, err := runStateful(t, c, Env{}, fmt.Sprintf("k%d", i))
		if err != nil || got != freshAnswer {
			t.Fatalf("call %d: got %q, %v, want %q", i, got, err, freshAnswer)
		}
	}
}

// TestReuseMismatch: when an instance's state after instantiation differs
// from the image taken of the first (instantiation was not deterministic),
// reuse stops for the component: no idle instance is handed out or kept.
func TestReuseMismatch(t *testing.T) {
	c := compileFixture(t, newRuntime(t), "stateful", WorldTool)
	for range 2 { // two idle instances
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() { _, _ = runStateful(t, c, Env{}, "k") })
		}
		wg.Wait()
	}
	c.reuse.mu.Lock()
	c.reuse.img.globals[0]++                        // as if the first instance had started elsewhere
	busy, kept := c.reuse.idle[0], c.reuse.idle[1:] // as if calls were using them
	c.reuse.idle = nil
	c.reuse.mu.Unlock()
	// With none idle, the next call instantiates and finds the mismatch.
	if got, err := runStateful(t, c, Env{}, "ky"); err != nil || got != freshAnswer {
		t.Fatalf("got %q, %v, want %q", got, err, freshAnswer)
	}
	c.reuse.mu.Lock()
	c.reuse.idle = append(c.reuse.idle, kept...)
	c.reuse.mu.Unlock()
	if !c.reuse.off {
		t.Fatal("reuse is still on after a mismatch")
	}
	busy.s = newState(&Env{})
	if c.reuse.put(busy) {
		t.Error("an instance was kept after reuse stopped")
	}
	if in := c.reuse.get(newState(&Env{}), 0); in != nil {
		t.Error("an idle instance was handed out after reuse stopped")
	}
}

// TestReuseComparesThePagesOfTheFirstFew: the first checkFirst fresh
// instances have their pages compared with the image; later ones only
// their memory's size and their globals, which still stop reuse when
// they differ.
func TestReuseComparesThePagesOfTheFirstFew(t *testing.T) {
	for _, tt := range []struct {
		name    string
		matched int64 // fresh instances whose pages matched before
		change  func(img *image)
		wantOff bool
	}{
		{"a page, among the first few", 0, func(img *image) { img.pages[0].data[0] ^= 1 }, true},
		{"a page, after them", checkFirst, func(img *image) { img.pages[0].data[0] ^= 1 }, false},
		{"a global, after them", checkFirst, func(img *image) { img.globals[0]++ }, true},
		{"the memory's size, after them", checkFirst, func(img *image) { img.size += 1 << 16 }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := compileFixture(t, newRuntime(t), "stateful", WorldTool)
			env := Env{MemoryLimitBytes: 64 << 20} // the pool's mapping: the page map tells touched pages
			if got, err := runStateful(t, c, env, "k"); err != nil || got != freshAnswer {
				t.Fatalf("got %q, %v, want %q", got, err, freshAnswer)
			}
			c.reuse.mu.Lock()
			if len(c.reuse.img.pages) == 0 {
				c.reuse.mu.Unlock()
				t.Fatal("the image has no pages")
			}
			tt.change(c.reuse.img)
			c.reuse.idle = nil // the next call instantiates
			c.reuse.mu.Unlock()
			c.reuse.matched.Store(tt.matched)
			if got, err := runStateful(t, c, env, "k"); err != nil || got != freshAnswer {
				t.Fatalf("got %q, %v, want %q", got, err, freshAnswer)
			}
			c.reuse.mu.Lock()
			off := c.reuse.off
			c.reuse.mu.Unlock()
			if off != tt.wantOff {
				t.Errorf("reuse off %v, want %v", off, tt.wantOff)
			}
		})
	}
}

// TestReuseCountsTheMatches: each fresh instance whose pages match the
// image counts towards checkFirst, and no more are counted after it.
func TestReuseCountsTheMatches(t *testing.T) {
	c := compileFixture(t, newRuntime(t), "stateful", WorldTool)
	env := Env{MemoryLimitBytes: 64 << 20}
	for i := range checkFirst + 3 { // the first gives the image
		if got, err := runStateful(t, c, env, "k"); err != nil || got != freshAnswer {
			t.Fatalf("call %d: got %q, %v, want %q", i, got, err, freshAnswer)
		}
		c.reuse.mu.Lock()
		c.reuse.idle = nil // the next call instantiates
		c.reuse.mu.Unlock()
		if want := min(int64(i), checkFirst); c.reuse.matched.Load() != want {
			t.Fatalf("after %d fresh instances: %d matched, want %d", i+1, c.reuse.matched.Load(), want)
		}
	}
}

// TestReuseLearnsTheTouchedPages: the first instance's image tells the
// component's pool which pages instantiation writes, and the first reset
// which pages a call touched, so that the memories the pool maps afresh
// get them present at once (memlimit.Pool.Prefault): here the data
// segment's page, the page cabi_realloc put the input in, and the slot's
// page. A memory on the Go heap, where the page map cannot say what a
// call touched, teaches only the image's pages.
func TestReuseLearnsTheTouchedPages(t *testing.T) {
	host := os.Getpagesize()
	pages := func(offs ...int) []int {
		var out []int
		for _, o := range offs {
			out = append(out, o/host*host)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, tt := range []struct {
		env  Env
		want []int
	}{
		{Env{Name: "mapped", MemoryLimitBytes: 64 << 20}, pages(512, 4096, 20000)},
		{Env{Name: "heap"}, pages(512)},
	} {
		t.Run(tt.env.Name, func(t *testing.T) {
			c := compileFixture(t, newRuntime(t), "stateful", WorldTool)
			if _, err := runStateful(t, c, tt.env, "ksecret"); err != nil {
				t.Fatal(err)
			}
			if got := c.pool.Hot(); !slices.Equal(got, tt.want) {
				t.Errorf("pages learned %v, want %v", got, tt.want)
			}
			// Only the first reset teaches: a call touching more changes nothing.
			if _, err := runStateful(t, c, tt.env, ""); err != nil {
				t.Fatal(err)
			}
			if got := c.pool.Hot(); !slices.Equal(got, tt.want) {
				t.Errorf("pages after a second call %v, want %v", got, tt.want)
			}
		})
	}
}

// TestReuseLearnsAtTheFirstWait: a call that waits for the network (the
// http fixture blocks in pollable.block until its response comes) tells
// the pool, while it waits, which pages it has touched so far: a run's
// first wave makes all its instances before any call ends, and they get
// those pages present at once. The server holds the answer until the
// pool has learned, so learning cannot have come from the reset.
func TestReuseLearnsAtTheFirstWait(t *testing.T) {
	c := compileFixture(t, newRuntime(t), "http", WorldTool)
	if c.reuse == nil {
		t.Fatalf("http is not reusable: %s", c.reuseWhy)
	}
	learned := make(chan []int, 1)
	srv := newHTTPServer(t, false, func(w http.ResponseWriter, _ *http.Request) {
		deadline := time.Now().Add(10 * time.Second)
		for len(c.pool.Hot()) == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		learned <- c.pool.Hot()
		_, _ = w.Write([]byte("ok"))
	})
	env := Env{Network: rules(t, srv.host), MemoryLimitBytes: 64 << 20}
	r, err := c.RunTool(context.Background(), env, ToolInput{Data: str("g" + srv.host + "|/")})
	if err != nil || r.Status != "passed" {
		t.Fatalf("call: %v (status %q)", err, r.Status)
	}
	got := <-learned
	if len(got) == 0 || got[0] != 0 {
		t.Fatalf("pages learned while the call waited: %v, want page 0 (the result slot) among them", got)
	}
	// Only once: a later call waits and learns nothing new.
	if c.reuse.learning() {
		t.Error("the component still learning after its first wait")
	}
}
