package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCompileCold compiles the echo guest with an empty disk cache,
// what the first run on a machine pays per tool.
func BenchmarkCompileCold(b *testing.B) {
	wasm := guest(b, "echo")
	for b.Loop() {
		e, err := NewEngine(context.Background(), Config{CacheDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Compile(context.Background(), "echo", wasm); err != nil {
			b.Fatal(err)
		}
		_ = e.Close(context.Background())
	}
}

// BenchmarkCompileCached compiles the echo guest in a new Engine whose disk
// cache already holds it, what every later run pays per tool.
func BenchmarkCompileCached(b *testing.B) {
	wasm := guest(b, "echo")
	dir := b.TempDir()
	warm, err := NewEngine(context.Background(), Config{CacheDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := warm.Compile(context.Background(), "echo", wasm); err != nil {
		b.Fatal(err)
	}
	_ = warm.Close(context.Background())
	for b.Loop() {
		e, err := NewEngine(context.Background(), Config{CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Compile(context.Background(), "echo", wasm); err != nil {
			b.Fatal(err)
		}
		_ = e.Close(context.Background())
	}
}

// BenchmarkCall runs the echo guest once per iteration: instantiate, run
// _start, close.
func BenchmarkCall(b *testing.B) {
	e := newTestEngine(b, Config{})
	benchCalls(b, e, compileGuest(b, e, "echo"))
}

// BenchmarkCallParallel runs the echo guest from GOMAXPROCS goroutines.
func BenchmarkCallParallel(b *testing.B) {
	e := newTestEngine(b, Config{})
	benchCallsParallel(b, e, compileGuest(b, e, "echo"))
}

// benchCalls runs m once per iteration with a session folder mounted, as
// every tool call of a case does.
func benchCalls(b *testing.B, e *Engine, m *Module) {
	in := toolInput(b, `{"q":"x"}`)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		out, err := e.Run(context.Background(), m, Call{Dir: dir, Stdin: in})
		if err != nil || out.ExitCode != 0 {
			b.Fatalf("Run = %v, %v", out, err)
		}
	}
}

// benchCallsParallel is benchCalls from GOMAXPROCS goroutines.
func benchCallsParallel(b *testing.B, e *Engine, m *Module) {
	in := toolInput(b, `{"q":"x"}`)
	dir := b.TempDir()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := e.Run(context.Background(), m, Call{Dir: dir, Stdin: in}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// minimalGuest is the smallest tool (cmd/murmur-bench/tool/ok.wat): no Go
// runtime, one fd_write. Calling it measures the sandbox's own cost per
// call; the echo guest adds a Go runtime's start-up.
func minimalGuest(b *testing.B, e *Engine) *Module {
	b.Helper()
	wasm, err := os.ReadFile(filepath.Join("..", "cmd", "murmur-bench", "tool", "ok.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	m, err := e.Compile(context.Background(), "ok", wasm)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkCallMinimal instantiates, runs and closes the minimal guest with
// a session folder mounted, as every tool call of a case does.
func BenchmarkCallMinimal(b *testing.B) {
	e := newTestEngine(b, Config{})
	benchCalls(b, e, minimalGuest(b, e))
}

// BenchmarkCallMinimalParallel is BenchmarkCallMinimal from GOMAXPROCS
// goroutines.
func BenchmarkCallMinimalParallel(b *testing.B) {
	e := newTestEngine(b, Config{})
	benchCallsParallel(b, e, minimalGuest(b, e))
}
