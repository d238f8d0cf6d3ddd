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
// compiles the output whenever it compiles the input (if it can be asked
// to: see wazeroCanTake).
func FuzzPrepareReset(f *testing.F) {
	f.Add(stackPointerModule())
	f.Add(codeModule([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f, i32}, end)) // 2^32-1 locals: see wazeroCanTake
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
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x0b\x05\xff\xff\xff\xff\x0f")) // 2^32-1 data segments
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x00\x05\xff\xff\xff\xff\x0f")) // a custom section's name of 4 GB
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
		if !wazeroCanTake(in) {
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

// wazeroCanTake reports whether wazero may be asked to compile mod
// without risking a fatal out of memory, which would kill the fuzzing
// worker. wazero v1.12.0 sizes a vector by its declared count before
// reading a single element: a 15-byte module declaring 2^32-1 data
// segments asks for 240 GB, and a body of a few bytes declaring 2^32-1
// locals for 32 GB (536 million locals took 6.8 s and 2 GB), a custom
// section whose name claims 2^32-1 bytes for 4 GB. So every
// vector's count and every name's length must fit in the bytes left (and
// the name section, whose maps are sized the same way, is left out), and a
// function may declare at most 1<<16 locals.
func wazeroCanTake(mod []byte) bool {
	secs, err := coreSections(mod)
	if err != nil {
		return false
	}
	for _, s := range secs {
		r := &reader{b: s.body}
		switch s.id {
		case 0:
			if string(r.bytes(r.u32())) == "name" {
				return false // its maps are sized by their counts too
			}
		case 1:
			typesFit(r)
		case 2:
			for n := r.count(1); n > 0 && r.err == nil; n-- {
				r.bytes(r.u32())
				r.bytes(r.u32())
				coreImportDesc(r)
			}
		case 7:
			for n := r.count(1); n > 0 && r.err == nil; n-- {
				r.bytes(r.u32())
				r.byte()
				r.u32()
			}
		case 3, 4, 5, 6, 13:
			r.count(1)
		case 9:
			elemsFit(r)
		case 10:
			codeFits(r)
		case 11:
			dataFits(r)
		}
		if r.err != nil {
			return false
		}
	}
	return true
}

func typesFit(r *reader) {
	for n := r.count(1); n > 0 && r.err == nil; n-- {
		if r.byte() != 0x60 {
			r.fail("not a function type")
			return
		}
		r.bytes(r.count(1))
		r.bytes(r.count(1))
	}
}

func elemsFit(r *reader) {
	for n := r.count(1); n > 0 && r.err == nil; n-- {
		flag := r.u32()
		if flag > 7 {
			r.fail("element segment flag %d", flag)
			return
		}
		if flag&3 == 2 {
			r.u32() // table index
		}
		if flag&1 == 0 {
			constExprFits(r) // offset
		}
		if flag&3 != 0 {
			r.byte() // element kind or reference type
		}
		for m := r.count(1); m > 0 && r.err == nil; m-- {
			if flag&4 != 0 {
				constExprFits(r)
			} else {
				r.u32()
			}
		}
	}
}

func dataFits(r *reader) {
	for n := r.count(1); n > 0 && r.err == nil; n-- {
		switch flag := r.u32(); flag {
		case 0:
			constExprFits(r)
		case 1:
		case 2:
			r.u32()
			constExprFits(r)
		default:
			r.fail("data segment flag %d", flag)
		}
		r.bytes(r.u32())
	}
}

func codeFits(r *reader) {
	for n := r.count(1); n > 0 && r.err == nil; n-- {
		body := &reader{b: r.bytes(r.u32())}
		var total uint64
		for g := body.count(2); g > 0 && body.err == nil; g-- {
			total += uint64(body.u32())
			body.byte()
		}
		if total > 1<<16 {
			r.fail("%d locals", total)
		}
	}
}

func constExprFits(r *reader) {
	if why := constExpr(r); why != "" {
		r.fail("%s", why)
	}
}
