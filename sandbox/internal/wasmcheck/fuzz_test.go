package wasmcheck

import (
	"context"
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/tetratelabs/wazero"
)

// maxCompileAlloc bounds what wazero may allocate compiling a module of
// under 4 KiB that Check accepted. Most take a few hundred KiB; a count
// Check let through unbounded would take gigabytes, or kill the process.
const maxCompileAlloc = 256 << 20

// FuzzCheck: Check never panics and refuses only with its own error; what
// it accepts, wazero compiles (or refuses) without dying or allocating by
// a count the bytes cannot back.
func FuzzCheck(f *testing.F) {
	for _, tc := range refused() {
		if len(tc.mod) < 4096 {
			f.Add(tc.mod)
		}
	}
	for _, tc := range accepted() {
		f.Add(tc.mod)
	}
	if b, err := os.ReadFile("../../component/testdata/wasm/echo_p1.wasm"); err == nil {
		f.Add(b)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(true))
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, mod []byte) {
		err := Check(mod)
		var r *refusal
		if err != nil && !errors.As(err, &r) {
			t.Fatalf("Check returned %T %v; want a refusal", err, err)
		}
		if err != nil || len(mod) >= 4096 {
			return
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		cm, cerr := rt.CompileModule(ctx, mod)
		runtime.ReadMemStats(&after)
		if cerr == nil {
			_ = cm.Close(ctx)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > maxCompileAlloc {
			t.Errorf("compiling %d accepted bytes allocated %d MiB; want at most %d", len(mod), got>>20, maxCompileAlloc>>20)
		}
	})
}
