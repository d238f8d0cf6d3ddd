package driver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/inference/drivertest"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// BenchmarkDriverWave is a run's first wave on the driver path, where the
// 1,024-worker point loses its wall time (BENCHMARKS.md, issue 38, session
// 20): N turns at once (MURMUR_EVAL_BENCH_WAVE, default 256) on a driver
// compiled for the wave, so every turn makes a fresh instance, and a server
// that answers none until all N requests have arrived, so every instance is
// live at once, as the sessions of a wave wait for their model. It reports
// the process's CPU a turn (user + system, the in-process server's
// included, compiling not) and the wave's spread: from the first request's
// arrival to the last's, how long the wave takes to leave. The driver is
// the tests' own or MURMUR_EVAL_BENCH_DRIVER's, as for BenchmarkDriverTurn.
func BenchmarkDriverWave(b *testing.B) {
	n := 256
	if v := os.Getenv("MURMUR_EVAL_BENCH_WAVE"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("MURMUR_EVAL_BENCH_WAVE=%q: want a positive number", v)
		}
	}
	bin := benchDriver(b)
	w := &wave{n: n}
	srv := httptest.NewServer(w)
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	env := benchEnv(b, srv.URL, &http.Client{Transport: tr}, time.Minute)
	data := benchPayload
	var cpu, spread time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c := drivertest.Compile(b, bin)
		w.start()
		before := cpuTime(b)
		b.StartTimer()
		var g sync.WaitGroup
		for range n {
			g.Go(func() {
				res, err := c.RunTool(context.Background(), env, component.ToolInput{Data: &data})
				if err != nil || res.Status != "passed" {
					b.Errorf("turn: %v (status %q, summary %v)", err, res.Status, res.Summary)
				}
			})
		}
		g.Wait()
		b.StopTimer()
		cpu += cpuTime(b) - before
		spread += w.spread()
		_ = c.Close(context.Background())
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*n)/1000, "cpu-ms/turn")
	b.ReportMetric(float64(spread.Milliseconds())/float64(b.N), "spread-ms")
}

// wave is a server that holds every answer until n requests have arrived,
// and records when the first and the last arrived.
type wave struct {
	n           int
	mu          sync.Mutex
	got         int
	first, last time.Time
	all         chan struct{}
}

func (w *wave) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got, w.all = 0, make(chan struct{})
}

func (w *wave) spread() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last.Sub(w.first)
}

func (w *wave) ServeHTTP(rw http.ResponseWriter, _ *http.Request) {
	w.mu.Lock()
	now, all := time.Now(), w.all
	if w.got == 0 {
		w.first = now
	}
	w.last = now
	if w.got++; w.got == w.n {
		close(all)
	}
	w.mu.Unlock()
	<-all
	writeAnswer(rw)
}

// cpuTime is the process's user and system time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
