package binary

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// FuzzPrepareReset: PrepareReset never panics and never changes its input;
// a module it exports globals of, read again, has exactly those exports
// (the second read reports them as the prefix's collision); and wazero
// compiles the output whenever it compiles the input (but for a function
// with very many locals: see manyLocals).
func FuzzPrepareReset(f *testing.F) {
	f.Add(stackPointerModule())
	f.Add(codeModule([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f, i32}, end)) // 2^32-1 locals: see manyLocals
	for _, c := range exportCases() {
		f.Add(c.mod)
	}
	for _, c := range whyCases() {
		f.Add(c.mod)
	}
	for _, c := range knownCases() {
		f.Add(codeModule(noLocals, append(c.code, end)...))
	}
	for _, c := range malformedCases() {
		f.Add(c.mod)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := slices.Clone(in)
		res, err := PrepareReset(in)
		if !bytes.Equal(in, orig) {
			t.Fatal("PrepareReset changed its input")
		}
		if err != nil {
			return
		}
		if res.Why == "" && len(res.Globals) > 0 {
			checkReadAgain(t, res)
		}
		if manyLocals(in) {
			return
		}
		cin, err := rt.CompileModule(ctx, in)
		if err != nil {
			return
		}
		cin.Close(ctx)
		cout, err := rt.CompileModule(ctx, res.Module)
		if err != nil {
			t.Fatalf("wazero compiles the input but not the output: %v", err)
		}
		cout.Close(ctx)
	})
}

// checkReadAgain: the output of PrepareReset, read again, has one export
// with the prefix for each global, and the second read says so in Why.
func checkReadAgain(t *testing.T, res Resettable) {
	t.Helper()
	again, err := PrepareReset(res.Module)
	if err != nil {
		t.Fatalf("the output is malformed: %v", err)
	}
	if !strings.Contains(again.Why, "already uses the prefix") {
		t.Errorf("read again: got Why %q, want the prefix's collision", again.Why)
	}
	n := 0
	for _, name := range exportNames(t, res.Module) {
		if strings.HasPrefix(name, GlobalExportPrefix) {
			n++
		}
	}
	if got, want := n, len(res.Globals); got != want {
		t.Errorf("read again: got %d exports with the prefix, want %d", got, want)
	}
}

// manyLocals reports whether a function in mod declares more than 1<<16
// locals. wazero allocates for each local a function declares when it
// compiles it, the count unchecked against the module's size: a body of a
// few bytes declaring 2^32-1 locals is a fatal out of memory (536 million
// took 6.8 s and 2 GB), which would kill the fuzzing worker.
func manyLocals(mod []byte) bool {
	secs, err := coreSections(mod)
	if err != nil {
		return false
	}
	for _, s := range secs {
		if s.id != 10 {
			continue
		}
		r := &reader{b: s.body}
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			body := &reader{b: r.bytes(r.u32())}
			var total uint64
			for g := body.count(2); g > 0 && body.err == nil; g-- {
				total += uint64(body.u32())
				body.byte()
			}
			if total > 1<<16 {
				return true
			}
		}
	}
	return false
}
