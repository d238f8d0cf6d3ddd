package component

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// BenchmarkToolCall is one echo call on a fresh component instance.
func BenchmarkToolCall(b *testing.B) {
	rt := newRuntime(b)
	c := compileFixture(b, rt, "tool", WorldTool)
	in := ToolInput{Data: str("ehello")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.RunTool(context.Background(), Env{}, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPreview1Call is the same echo as a preview-1 module run by
// sandbox.Engine, for comparison.
func BenchmarkPreview1Call(b *testing.B) {
	wasm := fixture(b, "echo_p1") // a core module: testdata/echo_p1.wat
	ctx := context.Background()
	e, err := sandbox.NewEngine(ctx, sandbox.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(ctx)
	m, err := e.Compile(ctx, "echo", wasm)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Run(ctx, m, sandbox.Call{Stdin: []byte("hello")}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCold decodes, validates and compiles the fixture in a new
// runtime with an empty cache each time.
func BenchmarkCompileCold(b *testing.B) {
	bin := fixture(b, "tool")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
		d, err := Decode(bin)
		if err == nil {
			_, err = Compile(ctx, rt, d, WorldTool)
		}
		if err != nil {
			b.Fatal(err)
		}
		_ = rt.Close(ctx)
	}
}

// BenchmarkCompileCached is Compile in a new runtime sharing a disk cache
// that already holds the main module.
func BenchmarkCompileCached(b *testing.B) {
	bin := fixture(b, "tool")
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer cache.Close(ctx)
	cfg := wazero.NewRuntimeConfig().WithCloseOnContextDone(true).WithCompilationCache(cache)
	compile := func() {
		rt := wazero.NewRuntimeWithConfig(ctx, cfg)
		defer rt.Close(ctx)
		d, err := Decode(bin)
		if err == nil {
			_, err = Compile(ctx, rt, d, WorldTool)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	compile()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		compile()
	}
}

// BenchmarkConcurrentInstancesRSS holds 256 instances of the probe fixture
// at once (each blocked in pollable.block until its 1 s deadline, as a
// tool waiting on I/O would be) and reports the resident memory each adds:
// the RSS while they are all alive, less the RSS before, over 256. Run it
// once: go test -run '^$' -bench ConcurrentInstancesRSS -benchtime 1x.
func BenchmarkConcurrentInstancesRSS(b *testing.B) {
	const n = 256
	rt := newRuntime(b)
	c := compileFixture(b, rt, "probe", WorldTool)
	for i := 0; i < b.N; i++ {
		runtime.GC()
		before := vmRSSKiB(b)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				_, _ = c.RunTool(context.Background(), Env{Deadline: time.Second}, ToolInput{Data: str("Z")})
			})
		}
		time.Sleep(500 * time.Millisecond)
		during := vmRSSKiB(b)
		wg.Wait()
		b.ReportMetric(float64(during-before)/n, "KiB/instance")
	}
}

// vmRSSKiB is this process's resident set size.
func vmRSSKiB(b *testing.B) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Skip("no VmRSS")
	return 0
}
