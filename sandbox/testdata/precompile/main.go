// Command precompile is a test helper, not a guest: it compiles wasm files
// into a wazero compilation cache directory, with the runtime configuration
// sandbox.Engine uses, so that the tests — often built with -race, which
// makes wazero's compiler an order of magnitude slower — only load them.
//
// Usage: precompile CACHE_DIR FILE.wasm...
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/tetratelabs/wazero"

	"github.com/murmur-nexus/murmur-eval/sandbox/internal/wasmcheck"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: precompile CACHE_DIR FILE.wasm...")
		os.Exit(2)
	}
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Must match NewEngine: the cache key covers the bytes and
	// WithCloseOnContextDone.
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().
		WithCloseOnContextDone(true).WithCompilationCache(cache))
	var wg sync.WaitGroup
	errs := make([]error, len(os.Args)-2)
	for i, f := range os.Args[2:] {
		wg.Go(func() {
			b, err := os.ReadFile(f)
			if err == nil { // the bytes Engine.Compile compiles: tables capped
				b, err = wasmcheck.Prepare(b, 0)
			}
			if err == nil {
				_, err = rt.CompileModule(ctx, b)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	code := 0
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[2+i], err)
			code = 1
		}
	}
	_ = rt.Close(ctx)
	_ = cache.Close(ctx)
	os.Exit(code)
}
