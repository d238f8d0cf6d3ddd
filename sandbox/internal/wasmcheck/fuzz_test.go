package wasmcheck

import (
	"bytes"
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

// FuzzCapTables: CapTables never panics, never writes to its input and
// refuses only with Check's kind of error; what Check accepts it caps, the
// result passes Check again and, for small inputs, wazero compiles it if
// and only if wazero compiles the input.
func FuzzCapTables(f *testing.F) {
	for _, b := range [][]byte{
		growModule(noMax(0)),
		growModule(withMax(1, 1<<20)),
		mod(tables(cat(funcref, noMax(1)), cat([]byte{0x40, 0, 0x63, 0x70}, withMax(0, 10), initExpr), []byte{0x6f, 0, 0})),
		mod(sec(2, str("env"), str("t"), []byte{1, 0x70, 0, 0}), tables(cat(funcref, noMax(capMax+1)))),
	} {
		f.Add(b)
	}
	for _, tc := range accepted() {
		f.Add(tc.mod)
	}
	compiles := compiler(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := pure(t, "CapTables", in, func(b []byte) ([]byte, error) { return CapTables(b, MaxTableElements) })
		if Check(in) != nil {
			return
		}
		if err != nil {
			t.Fatalf("Check accepts the input but CapTables = %v", err)
		}
		if err := Check(out); err != nil {
			t.Fatalf("Check(CapTables) = %v; want nil", err)
		}
		if len(in) >= 4096 {
			return
		}
		if a, b := compiles(in), compiles(out); a != b {
			t.Errorf("wazero compiles the input: %v, the capped module: %v", a, b)
		}
	})
}

// FuzzGuardTableGrowth: Prepare's guard never panics and never writes to
// its input; what Check accepts and CapTables caps, it guards into a module
// Check accepts again and, for small inputs, that wazero compiles if and
// only if it compiles the capped one (the guard's functions, types, global
// and export are valid wherever the module's own code was).
func FuzzGuardTableGrowth(f *testing.F) {
	f.Add(growModule(noMax(0)))
	f.Add(guardedModule())
	f.Add(mod(sec(1, []byte{1, 0x60, 0, 0}), sec(3, []byte{1, 0}), tables(cat(funcref, noMax(1))), sec(8, []byte{0}),
		codeSec([]byte{0, 0xd0, 0x70, 0x41, 0x0a, 0xfc, 0x0f, 0, 0x1a, 0x0b})))
	for _, tc := range accepted() {
		f.Add(tc.mod)
	}
	compiles := compiler(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		pure(t, "GuardTableGrowth", in, GuardTableGrowth)
		if Check(in) != nil {
			return
		}
		capped, err := CapTables(in, MaxTableElements)
		if err != nil {
			t.Fatalf("Check accepts the input but CapTables = %v", err)
		}
		out, err := GuardTableGrowth(capped)
		if err != nil {
			t.Fatalf("Check accepts the input but GuardTableGrowth = %v", err)
		}
		if err := Check(out); err != nil {
			t.Fatalf("Check(guarded) = %v; want nil", err)
		}
		if len(in) >= 4096 {
			return
		}
		if a, b := compiles(capped), compiles(out); a != b {
			t.Errorf("wazero compiles the capped module: %v, the guarded one: %v", a, b)
		}
	})
}

// compiler returns whether wazero compiles a module, with one runtime for
// the fuzz target, closed when it ends.
func compiler(f *testing.F) func([]byte) bool {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(true))
	f.Cleanup(func() { _ = rt.Close(ctx) })
	return func(b []byte) bool {
		cm, err := rt.CompileModule(ctx, b)
		if err == nil {
			_ = cm.Close(ctx)
		}
		return err == nil
	}
}

// pure calls rewrite (named name) on in and fails t if it wrote to in or
// returned an error other than Check's kind.
func pure(t *testing.T, name string, in []byte, rewrite func([]byte) ([]byte, error)) ([]byte, error) {
	t.Helper()
	orig := bytes.Clone(in)
	out, err := rewrite(in)
	if !bytes.Equal(in, orig) {
		t.Fatalf("%s changed its input", name)
	}
	var r *refusal
	if err != nil && !errors.As(err, &r) {
		t.Fatalf("%s returned %T %v; want a refusal", name, err, err)
	}
	return out, err
}
