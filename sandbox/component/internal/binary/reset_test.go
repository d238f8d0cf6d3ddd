package binary

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestPrepareResetStackPointer: a mutable i32 that code sets (like Rust's
// __stack_pointer) is exported; through wazero the export is a
// MutableGlobal that follows the code's global.set and that Set restores,
// and the rewritten module's functions compute what the original's do.
func TestPrepareResetStackPointer(t *testing.T) {
	ctx := context.Background()
	in := stackPointerModule()
	orig := slices.Clone(in)
	res, err := PrepareReset(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in, orig) {
		t.Error("PrepareReset changed its input")
	}
	if got, want := res.Globals, []string{GlobalExportPrefix + "0"}; !slices.Equal(got, want) || res.Why != "" {
		t.Fatalf("got Globals %q, Why %q; want %q, no Why", got, res.Why, want)
	}
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	m, err := rt.InstantiateWithConfig(ctx, res.Module, wazero.NewModuleConfig().WithName("out"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := rt.InstantiateWithConfig(ctx, in, wazero.NewModuleConfig().WithName("in"))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := m.ExportedGlobal(res.Globals[0]).(api.MutableGlobal)
	if !ok {
		t.Fatalf("got %T for export %s, want an api.MutableGlobal", m.ExportedGlobal(res.Globals[0]), res.Globals[0])
	}
	call := func(mod api.Module, name string) uint64 {
		t.Helper()
		r, err := mod.ExportedFunction(name).Call(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(r) == 0 {
			return 0
		}
		return r[0]
	}
	call(m, "bump")
	call(base, "bump")
	if got, want := g.Get(), uint64(1024-16); got != want {
		t.Errorf("after bump: got global %d, want %d", got, want)
	}
	if got, want := call(m, "get"), call(base, "get"); got != want {
		t.Errorf("get: got %d from the rewritten module, want %d as the original's", got, want)
	}
	g.Set(1024)
	if got, want := call(m, "get"), uint64(1024+7); got != want {
		t.Errorf("after Set(1024): got get() = %d, want %d", got, want)
	}
}

// stackPointerModule: global 0 a mutable i32 (1024); bump subtracts 16
// from it, get returns it plus 7.
func stackPointerModule() []byte {
	return module(
		sec(1, wasmVec(funcType(nil, nil), funcType(nil, []byte{i32}))),
		sec(3, wasmVec([]byte{0}, []byte{1})),
		sec(6, wasmVec([]byte{i32, 1, 0x41, 0x80, 0x08, end})),
		sec(7, wasmVec(export("bump", 0, 0), export("get", 0, 1))),
		sec(10, wasmVec(
			fnBody(noLocals, 0x23, 0, 0x41, 16, 0x6b, 0x24, 0, end),
			fnBody(noLocals, 0x23, 0, 0x41, 7, 0x6a, end),
		)),
	)
}

type exportCase struct {
	name    string
	mod     []byte
	globals []string // GlobalExportPrefix + each
	ids     []byte   // the output's section ids
	exports []string // the output's export names, without the prefix's
	why     string   // a substring of Why; "" none
}

func exportCases() []exportCase {
	types := sec(1, wasmVec(funcType(nil, nil)))
	funcs := sec(3, wasmVec([]byte{0}))
	code := sec(10, wasmVec(fnBody(noLocals, end)))
	mut := sec(6, wasmVec(global(true, 1)))
	envG := cat(wasmStr("env"), wasmStr("g"), []byte{0x03, i32, 0})
	envF := cat(wasmStr("env"), wasmStr("f"), []byte{0x00, 0})
	return []exportCase{
		{"no export section", module(types, funcs, mut, code), []string{"0"}, []byte{1, 3, 6, 7, 10}, nil, ""},
		{"export section", module(types, funcs, mut, sec(7, wasmVec(export("f", 0, 0))), code),
			[]string{"0"}, []byte{1, 3, 6, 7, 10}, []string{"f"}, ""},
		{"custom sections", module(custom("a"), types, custom("b"), funcs, mut, custom("c"), code, custom("trailer")),
			[]string{"0"}, []byte{0, 1, 0, 3, 6, 7, 0, 10, 0}, nil, ""},
		{"only globals", module(custom("a"), mut, custom("b")), []string{"0"}, []byte{0, 6, 7, 0}, nil, ""},
		{"later sections", module(types, funcs, sec(5, wasmVec([]byte{0, 1})), mut, sec(8, uleb(0)), sec(12, uleb(1)), code,
			sec(11, wasmVec([]byte{0, 0x41, 0, end, 1, 'x'}))),
			[]string{"0"}, []byte{1, 3, 5, 6, 7, 8, 12, 10, 11}, nil, ""},
		{"mixed globals", module(sec(6, wasmVec(global(false, 1), global(true, 2), global(false, 3), global(true, 4)))),
			[]string{"1", "3"}, []byte{6, 7}, nil, ""},
		{"imported global shifts", module(types, sec(2, wasmVec(envF, envG)), mut), []string{"1"}, []byte{1, 2, 6, 7},
			nil, "imports a global (g)"},
		{"immutable only", module(types, funcs, sec(6, wasmVec(global(false, 1))), code), nil, []byte{1, 3, 6, 10}, nil, ""},
	}
}

// TestPrepareResetExports: the exports land in the export section, or a
// new one in its place among the sections (custom sections staying where
// they were), named by global index counting imported globals; the output
// compiles with wazero.
func TestPrepareResetExports(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for _, tt := range exportCases() {
		orig := slices.Clone(tt.mod)
		res, err := PrepareReset(tt.mod)
		if err != nil {
			t.Errorf("%s: got %v, want no error", tt.name, err)
			continue
		}
		var want []string
		for _, g := range tt.globals {
			want = append(want, GlobalExportPrefix+g)
		}
		if diff := cmp.Diff(res.Globals, want); diff != "" {
			t.Errorf("%s: Globals (-got +want):\n%s", tt.name, diff)
		}
		if got := sectionIDs(t, res.Module); !bytes.Equal(got, tt.ids) {
			t.Errorf("%s: got sections %v, want %v", tt.name, got, tt.ids)
		}
		if diff := cmp.Diff(exportNames(t, res.Module), append(slices.Clone(tt.exports), want...)); diff != "" {
			t.Errorf("%s: exports (-got +want):\n%s", tt.name, diff)
		}
		if !strings.Contains(res.Why, tt.why) || tt.why == "" && res.Why != "" {
			t.Errorf("%s: got Why %q, want %q", tt.name, res.Why, tt.why)
		}
		if !bytes.Equal(tt.mod, orig) {
			t.Errorf("%s: PrepareReset changed its input", tt.name)
		}
		if len(want) == 0 && !bytes.Equal(res.Module, tt.mod) {
			t.Errorf("%s: no mutable globals, but the module changed", tt.name)
		}
		if cm, err := rt.CompileModule(ctx, res.Module); err != nil {
			t.Errorf("%s: wazero refuses the output: %v", tt.name, err)
		} else {
			cm.Close(ctx)
		}
	}
}

func sectionIDs(t *testing.T, mod []byte) []byte {
	t.Helper()
	secs, err := coreSections(mod)
	if err != nil {
		t.Fatal(err)
	}
	var ids []byte
	for _, s := range secs {
		ids = append(ids, s.id)
	}
	return ids
}

// exportNames lists a module's export names.
func exportNames(t testing.TB, mod []byte) []string {
	t.Helper()
	secs, err := coreSections(mod)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range secs {
		if s.id != 7 {
			continue
		}
		r := &reader{b: s.body}
		for n := r.count(3); n > 0 && r.err == nil; n-- {
			names = append(names, r.name())
			r.byte()
			r.u32()
		}
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	return names
}

// whyCases: one module for each reason instances cannot be reset.
func whyCases() []struct {
	name, why string
	mod       []byte
} {
	fc := func(sub byte) []byte { return codeModule(noLocals, 0xfc, sub, 0, 0, end) }
	imp := func(desc ...byte) []byte {
		return module(sec(2, wasmVec(cat(wasmStr("env"), wasmStr("x"), desc))), sec(6, wasmVec(global(true, 0))))
	}
	return []struct {
		name, why string
		mod       []byte
	}{
		{"table.set", "function 0: table.set (0x26)", codeModule(noLocals, 0x41, 0, 0xd0, 0x70, 0x26, 0, end)},
		{"table.grow", "table.grow (0xfc 15)", fc(15)},
		{"table.fill", "table.fill (0xfc 17)", fc(17)},
		{"table.copy", "table.copy (0xfc 14)", fc(14)},
		{"table.init", "table.init (0xfc 12)", fc(12)},
		{"elem.drop", "elem.drop (0xfc 13)", fc(13)},
		{"memory.init", "memory.init (0xfc 8)", fc(8)},
		{"data.drop", "data.drop (0xfc 9)", fc(9)},
		{"unknown 0xfc", "opcode 0xfc 18 is unknown", fc(18)},
		{"atomic", "atomic instruction (0xfe prefix)", codeModule(noLocals, 0xfe, 0x03, 0, end)},
		{"simd", "SIMD instruction (0xfd prefix)", codeModule(noLocals, 0xfd, 0x0c, end)},
		{"unknown opcode", "opcode 0x6 is unknown", codeModule(noLocals, 0x06, 0x40, end, end)},
		{"gc prefix", "opcode 0xfb is unknown", codeModule(noLocals, 0xfb, 0, end)},
		{"call_ref", "opcode 0x14 is unknown", codeModule(noLocals, 0x14, 0, end)},
		{"local type", "function 0: local type 0x64 is unknown", codeModule([]byte{1, 1, 0x64, 0x70}, end)},
		{"block type", "block type -29 is unknown", codeModule(noLocals, 0x02, 0x63, 0x70, end, end)},
		{"select type", "select's value type 0x64", codeModule(noLocals, 0x1c, 1, 0x64, end)},
		{"ref.null heap type", "ref.null's heap type 0x6e", codeModule(noLocals, 0xd0, 0x6e, 0x1a, end)},
		{"memory import", "imports a memory (x)", imp(0x02, 0, 1)},
		{"table import", "imports a table (x)", imp(0x01, 0x70, 0, 1)},
		{"global import", "imports a global (x)", imp(0x03, i32, 1)},
		{"two memories", "defines 2 memories", module(sec(5, wasmVec([]byte{0, 1}, []byte{0, 1})))},
		{"shared memory", "shared memory (limits flag 0x3)", module(sec(5, wasmVec([]byte{3, 1, 1})))},
		{"64-bit memory", "64-bit limits", module(sec(5, wasmVec([]byte{4, 1})))},
		{"mutable v128", "mutable global 0's type 0x7b", module(sec(6, wasmVec(cat([]byte{0x7b, 1, 0xfd, 12}, make([]byte, 16), []byte{end}))))},
		{"mutable funcref", "mutable global 1's type 0x70", module(sec(6, wasmVec(global(true, 0), []byte{0x70, 1, 0xd0, 0x70, end})))},
		{"global type", "global 0's type 0x64 is unknown", module(sec(6, wasmVec([]byte{0x64, 1, 0xd0, 0x70, end})))},
		{"global init", "global 0's initializer: opcode 0x20 is unknown", module(sec(6, wasmVec([]byte{i32, 1, 0x20, 0, end})))},
		{"prefix collision", `export "murmur-eval:global:7" already uses the prefix`,
			module(sec(6, wasmVec(global(true, 0))), sec(7, wasmVec(export(GlobalExportPrefix+"7", 3, 0))))},
		{"table export", "exports a table (t)", module(sec(4, wasmVec([]byte{0x70, 0, 1})), sec(7, wasmVec(export("t", 1, 0))))},
		{"unknown section before imports", "section id 14 is unknown",
			module(sec(14, []byte{0}), sec(2, wasmVec(cat(wasmStr("env"), wasmStr("g"), []byte{0x03, i32, 0}))), sec(6, wasmVec(global(true, 0))))},
		{"shared global", "mutability 0x2 is unknown", module(sec(6, wasmVec([]byte{i32, 2, 0x41, 0, end})))},
		{"unknown section", "section id 14 is unknown", module(sec(14, []byte{0}))},
	}
}

// TestPrepareResetWhy: each thing that keeps an instance from being reset
// to its initial state, or that the scanner does not know, sets Why
// naming it; it is never an error.
func TestPrepareResetWhy(t *testing.T) {
	for _, tt := range whyCases() {
		res, err := PrepareReset(tt.mod)
		switch {
		case err != nil:
			t.Errorf("%s: got %v, want Why %q", tt.name, err, tt.why)
		case !strings.Contains(res.Why, tt.why):
			t.Errorf("%s: got Why %q, want %q", tt.name, res.Why, tt.why)
		}
	}
}

// knownCases: bodies of instructions the scanner knows, with their
// immediates in every encoding it must accept.
func knownCases() []struct {
	name string
	code []byte
} {
	return []struct {
		name string
		code []byte
	}{
		{"blocks", []byte{0x02, 0x40, 0x03, i32, 0x41, 0, 0x04, 0x00, 0x05, 0x0b, 0x0b, 0x1a, 0x0b}},
		{"branches", []byte{0x02, 0x40, 0x41, 0, 0x0e, 2, 0, 0, 0, 0x0c, 0, 0x0d, 0, 0x0b, 0x0f}},
		{"calls", []byte{0x10, 0, 0x41, 0, 0x11, 0, 0x80, 0x00, 0x12, 0, 0x41, 0, 0x13, 0, 0}},
		{"variables", []byte{0x20, 0, 0x21, 0, 0x22, 0, 0x23, 0, 0x24, 0, 0x25, 0}},
		{"memory", []byte{0x28, 2, 0, 0x36, 0x42, 1, 0x80, 0x80, 0x04, 0x3f, 0, 0x40, 0}},
		{"constants", []byte{0x41, 0x80, 0x80, 0x80, 0x80, 0x78, 0x42, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
			0x43, 0, 0, 0, 0, 0x44, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"numeric", []byte{0x45, 0x6a, 0xa7, 0xbf, 0xc0, 0xc4, 0x00, 0x01, 0x1a, 0x1b}},
		{"bulk memory", []byte{0xfc, 0, 0xfc, 7, 0xfc, 10, 0, 0, 0xfc, 11, 0, 0xfc, 16, 0}},
		{"reference types", []byte{0xd0, 0x70, 0xd0, 0x6f, 0xd1, 0xd2, 3, 0x1c, 2, 0x70, 0x7b}},
		{"multi-value block", []byte{0x02, 0x01, 0x0b, 0x02, 0x80, 0x01, 0x0b}},
		{"locals", nil},
	}
}

// TestPrepareResetKnown: the instructions the scanner knows leave Why
// empty (the modules need not validate: only the scan is under test).
func TestPrepareResetKnown(t *testing.T) {
	for _, tt := range knownCases() {
		locals := noLocals
		if tt.code == nil {
			locals = []byte{7, 1, 0x7f, 1, 0x7e, 1, 0x7d, 1, 0x7c, 1, 0x7b, 1, 0x70, 1, 0x6f}
		}
		res, err := PrepareReset(codeModule(locals, append(tt.code, end)...))
		if err != nil || res.Why != "" || len(res.Globals) != 1 {
			t.Errorf("%s: got %v, Why %q, Globals %q; want no error or Why, one global", tt.name, err, res.Why, res.Globals)
		}
	}
}

// malformedCases: modules that are not well formed.
func malformedCases() []struct {
	name string
	mod  []byte
} {
	body := func(size byte, b ...byte) []byte {
		return module(sec(1, wasmVec(funcType(nil, nil))), sec(3, wasmVec([]byte{0})), sec(10, wasmVec(append([]byte{size}, b...))))
	}
	return []struct {
		name string
		mod  []byte
	}{
		{"empty", nil},
		{"component header", []byte("\x00asm\x0d\x00\x01\x00")},
		{"section past the end", append(module(), 1, 9, 0)},
		{"section size LEB", append(module(), 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)},
		{"out of order", module(sec(3, wasmVec()), sec(1, wasmVec()))},
		{"repeated", module(sec(6, wasmVec()), sec(6, wasmVec()))},
		{"truncated body", module(sec(10, []byte{1, 5, 0, 0x41}))},
		{"body ends early", body(3, 0, end, 0x01)},
		{"body without end", body(2, 0, 0x01)},
		{"end inside an immediate", body(3, 0, 0x41, end)},
		{"bad i32 LEB", body(9, 0, 0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, end)},
		{"bad index LEB", body(9, 0, 0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, end)},
		{"truncated memarg", body(4, 0, 0x28, 0x42, 0x80)},
		{"locals past the end", body(3, 5, 1, i32)},
		{"global truncated", module(sec(6, []byte{1, i32, 1, 0x41}))},
		{"export trailing bytes", module(sec(7, cat(wasmVec(export("f", 0, 0)), []byte{0})))},
		{"import truncated", module(sec(2, cat([]byte{1}, wasmStr("env"), wasmStr("f"), []byte{0x00})))},
		{"code count", module(sec(10, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}))},
	}
}

// TestPrepareResetMalformed: a malformed module is E-RUN-001, never a
// panic.
func TestPrepareResetMalformed(t *testing.T) {
	for _, tt := range malformedCases() {
		res, err := PrepareReset(tt.mod)
		if !errcode.Is(err, errcode.RunCapsule) {
			t.Errorf("%s: got %v (Why %q), want E-RUN-001", tt.name, err, res.Why)
		}
	}
}

// TestPrepareResetDriver: murmur's real driver's main module, when a copy
// is at hand (never committed), needs no more than its stack pointer
// exported.
func TestPrepareResetDriver(t *testing.T) {
	mod, err := os.ReadFile("/tmp/prof38/core0.wasm")
	if err != nil {
		t.Skip("no copy of the driver's main module at /tmp/prof38/core0.wasm")
	}
	res, err := PrepareReset(mod)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Globals, []string{GlobalExportPrefix + "0"}; res.Why != "" || !slices.Equal(got, want) {
		t.Errorf("got Globals %q, Why %q; want %q, no Why", got, res.Why, want)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if _, err := rt.CompileModule(ctx, res.Module); err != nil {
		t.Errorf("wazero refuses the rewritten driver: %v", err)
	}
}

// BenchmarkPrepareReset: PrepareReset of murmur's real driver's main
// module (430,803 bytes at issue 38), when a copy is at hand.
func BenchmarkPrepareReset(b *testing.B) {
	mod, err := os.ReadFile("/tmp/prof38/core0.wasm")
	if err != nil {
		b.Skip("no copy of the driver's main module at /tmp/prof38/core0.wasm")
	}
	b.SetBytes(int64(len(mod)))
	for b.Loop() {
		if _, err := PrepareReset(mod); err != nil {
			b.Fatal(err)
		}
	}
}

// The assembler: core modules built as bytes.

func uleb(v uint32) []byte { return appendULEB(nil, uint64(v)) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// wasmVec is a vector: its count and its items.
func wasmVec(items ...[]byte) []byte { return cat(uleb(uint32(len(items))), cat(items...)) }

// wasmStr is a name.
func wasmStr(s string) []byte { return cat(uleb(uint32(len(s))), []byte(s)) }

// sec is a section with its id and size.
func sec(id byte, body ...[]byte) []byte {
	b := cat(body...)
	return cat([]byte{id}, uleb(uint32(len(b))), b)
}

// custom is a custom section named name.
func custom(name string) []byte { return sec(0, wasmStr(name), []byte("payload")) }

// module is a core module of the given sections.
func module(sections ...[]byte) []byte {
	return cat([]byte("\x00asm\x01\x00\x00\x00"), cat(sections...))
}

// fnBody is a code section entry: locals (a vector) and code ending in
// its own end.
func fnBody(locals []byte, code ...byte) []byte {
	b := cat(locals, code)
	return cat(uleb(uint32(len(b))), b)
}

// noLocals is an empty locals vector.
var noLocals = []byte{0}

const (
	i32 = 0x7f
	end = 0x0b
)

// funcType is a type section entry.
func funcType(params, results []byte) []byte {
	return cat([]byte{0x60}, uleb(uint32(len(params))), params, uleb(uint32(len(results))), results)
}

// global is a global section entry: an i32 initialized to v (v < 64).
func global(mutable bool, v byte) []byte {
	m := byte(0)
	if mutable {
		m = 1
	}
	return []byte{i32, m, 0x41, v, end}
}

// export is an export section entry.
func export(name string, kind byte, index uint32) []byte {
	return cat(wasmStr(name), []byte{kind}, uleb(index))
}

// codeModule is a module with one function of type () -> () of the given
// locals and code (ending in end), and a mutable global.
func codeModule(locals []byte, code ...byte) []byte {
	return module(
		sec(1, wasmVec(funcType(nil, nil))),
		sec(3, wasmVec([]byte{0})),
		sec(6, wasmVec(global(true, 0))),
		sec(10, wasmVec(fnBody(locals, code...))),
	)
}
