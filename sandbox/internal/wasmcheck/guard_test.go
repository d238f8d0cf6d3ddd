package wasmcheck

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// growBody is a body that grows table t by its i32 parameter with null
// references of type ref.
func growBody(ref, t byte) []byte {
	return cat([]byte{0, 0xd0, ref, 0x20, 0, 0xfc, 0x0f, t, 0x0b})
}

// codeSec is a code section of the given bodies (without their sizes).
func codeSec(bodies ...[]byte) []byte {
	var items []byte
	for _, b := range bodies {
		items = cat(items, leb(uint64(len(b))), b)
	}
	return sec(10, leb(uint64(len(bodies))), items)
}

// TestGuardTableGrowthLeaves: modules with nothing to guard, or beyond the
// reader, come back as the same slice.
func TestGuardTableGrowthLeaves(t *testing.T) {
	i32to32 := sec(1, []byte{1, 0x60, 1, 0x7f, 1, 0x7f})
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"no code", mod(tables(cat(funcref, capped(0))))},
		{"no table.grow", oneFunc([]byte{0, 0x0b})},
		{"a grow on an imported table", mod(i32to32, sec(2, str("env"), str("t"), []byte{1, 0x70, 0, 0}),
			sec(3, []byte{1, 0}), codeSec(growBody(0x70, 0)))},
		{"a vector instruction beside the grow", mod(i32to32, sec(3, []byte{1, 0}), tables(cat(funcref, capped(0))),
			codeSec(cat([]byte{0, 0xfd, 0x0c}, make([]byte, 16), []byte{0x1a}, growBody(0x70, 0)[1:])))},
		{"an export already named as the guard's", mod(i32to32, sec(3, []byte{1, 0}), tables(cat(funcref, capped(0))),
			sec(7, []byte{1}, str(TableGrowthExport), []byte{0, 0}), codeSec(growBody(0x70, 0)))},
		{"a rec group", mod(sec(1, []byte{1, 0x4e, 1, 0x60, 1, 0x7f, 1, 0x7f}), sec(3, []byte{1, 0}),
			tables(cat(funcref, capped(0))), codeSec(growBody(0x70, 0)))},
		{"a table of a typed reference", mod(i32to32, sec(3, []byte{1, 0}), tables(cat([]byte{0x63, 0x70}, capped(0))),
			codeSec(growBody(0x70, 0)))},
		{"a body ending early", mod(i32to32, sec(3, []byte{1, 0}), tables(cat(funcref, capped(0))),
			codeSec([]byte{0, 0xd0, 0x70, 0x20, 0, 0xfc, 0x0f, 0}))},
	} {
		in := bytes.Clone(tt.in)
		got, err := GuardTableGrowth(in)
		if err != nil {
			t.Errorf("%s: GuardTableGrowth = %v; want nil", tt.name, err)
			continue
		}
		if !bytes.Equal(in, tt.in) {
			t.Errorf("%s: GuardTableGrowth changed its input", tt.name)
		}
		if len(got) != len(in) || &got[0] != &in[0] {
			t.Errorf("%s: GuardTableGrowth = % x; want the input itself", tt.name, got)
		}
	}
}

// envModule exports f() i32 = 40 and an immutable i32 global g = 2.
func envModule() []byte {
	return mod(
		sec(1, []byte{1, 0x60, 0, 1, 0x7f}),
		sec(3, []byte{1, 0}),
		sec(6, []byte{1, 0x7f, 0, 0x41, 2, 0x0b}),
		sec(7, []byte{2}, str("f"), []byte{0, 0}, str("g"), []byte{3, 0}),
		codeSec([]byte{0, 0x41, 40, 0x0b}),
	)
}

// guardedModule imports a function and a global, defines two tables (a
// funcref one without a maximum, an externref one of at most 50), a
// mutable global of 7, and exports growa (its grow at the top level),
// growb (its grow in a block, a call to the import after it), callf (the
// import's result plus the imported global) and the global as g7.
func guardedModule() []byte {
	return mod(
		sec(1, []byte{2, 0x60, 0, 1, 0x7f, 0x60, 1, 0x7f, 1, 0x7f}),
		sec(2, []byte{2}, str("env"), str("f"), []byte{0, 0}, str("env"), str("g"), []byte{3, 0x7f, 0}),
		sec(3, []byte{3, 1, 1, 0}),
		tables(cat(funcref, noMax(0)), cat([]byte{0x6f}, withMax(0, 50))),
		sec(6, []byte{1, 0x7f, 1, 0x41, 7, 0x0b}),
		sec(7, []byte{4}, str("growa"), []byte{0, 1}, str("growb"), []byte{0, 2}, str("callf"), []byte{0, 3},
			str("g7"), []byte{3, 1}),
		codeSec(
			growBody(0x70, 0),
			[]byte{0, 0x02, 0x7f, 0xd0, 0x6f, 0x20, 0, 0xfc, 0x0f, 1, 0x0b, 0x10, 0, 0x1a, 0x0b},
			[]byte{0, 0x10, 0, 0x23, 0, 0x6a, 0x0b},
		),
		custom("x", []byte{0}),
	)
}

// TestGuardTableGrowth: a module with imports, globals, exports and two
// tables grown keeps every index it had: its calls, globals and exports
// work as before, grows within the maximum return the old size, and a grow
// past it traps with the size asked for in TableGrowthExport.
func TestGuardTableGrowth(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if _, err := rt.InstantiateWithConfig(ctx, envModule(), wazero.NewModuleConfig().WithName("env")); err != nil {
		t.Fatal(err)
	}
	in := guardedModule()
	out, err := Prepare(bytes.Clone(in), 0)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(in, out) {
		t.Fatal("Prepare left the module as it was")
	}
	if err := Check(out); err != nil {
		t.Fatalf("Check(guarded) = %v", err)
	}
	cm, err := rt.CompileModule(ctx, out)
	if err != nil {
		t.Fatalf("compile the guarded module: %v", err)
	}
	instance := func() api.Module {
		m, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	call := func(m api.Module, fn string, args ...uint64) (uint64, error) {
		res, err := m.ExportedFunction(fn).Call(ctx, args...)
		if err != nil {
			return 0, err
		}
		return res[0] & 0xffffffff, nil
	}

	m := instance()
	if got, err := call(m, "callf"); err != nil || got != 42 {
		t.Errorf("callf() = %d, %v; want 42", got, err)
	}
	if got := m.ExportedGlobal("g7").Get(); got != 7 {
		t.Errorf("g7 = %d; want 7", got)
	}
	if got, err := call(m, "growa", 3); err != nil || got != 0 {
		t.Errorf("growa(3) = %d, %v; want 0", got, err)
	}
	if got, err := call(m, "growb", 50); err != nil || got != 0 {
		t.Errorf("growb(50) = %d, %v; want 0", got, err)
	}
	if got := TableGrowth(m); got != 0 {
		t.Errorf("TableGrowth after grows within the maximums = %d; want 0", got)
	}
	for _, tt := range []struct {
		fn    string
		delta uint64
		asked uint64
	}{
		{"growa", capMax - 2, capMax + 1}, // 3 + (capMax-2)
		{"growb", 1, 51},
	} {
		if _, err := call(m, tt.fn, tt.delta); err == nil || !strings.Contains(err.Error(), "unreachable") {
			t.Errorf("%s(%d) = %v; want the guard's trap", tt.fn, tt.delta, err)
		}
		if got := TableGrowth(m); got != tt.asked {
			t.Errorf("after %s(%d): TableGrowth = %d; want %d", tt.fn, tt.delta, got, tt.asked)
		}
	}
	if got, err := call(m, "callf"); err != nil || got != 42 {
		t.Errorf("callf() after the traps = %d, %v; want 42", got, err)
	}
	_ = m.Close(ctx)
}

// TestGuardAddsSections: the guard's global and export go into new
// sections where a module has none, each in its place in the section
// order; a grow past the limit in a start function fails the
// instantiation. wazero returns the instance of a failed _start (a
// preview-1 command's), which still answers TableGrowth; a start section's
// trap leaves none.
func TestGuardAddsSections(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	body := codeSec([]byte{0, 0xd0, 0x70, 0x41, 0x0a, 0xfc, 0x0f, 0, 0x1a, 0x0b}) // grow by 10, drop
	for _, tt := range []struct {
		name  string
		in    []byte
		ids   []byte
		asked uint64
	}{
		{"a start section, no global or export section", mod(sec(1, []byte{1, 0x60, 0, 0}), sec(3, []byte{1, 0}),
			tables(cat(funcref, noMax(1))), sec(8, []byte{0}), body), []byte{1, 3, 4, 6, 7, 8, 10}, 0},
		{"_start exported, no global section", mod(sec(1, []byte{1, 0x60, 0, 0}), sec(3, []byte{1, 0}),
			tables(cat(funcref, noMax(1))), sec(7, []byte{1}, str("_start"), []byte{0, 0}), body), []byte{1, 3, 4, 6, 7, 10}, 11},
	} {
		out, err := Prepare(tt.in, 5)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if err := Check(out); err != nil {
			t.Fatalf("%s: Check(guarded) = %v", tt.name, err)
		}
		secs, err := splitSections(out)
		if err != nil {
			t.Fatal(err)
		}
		var ids []byte
		for _, s := range secs {
			ids = append(ids, s.id)
		}
		if !bytes.Equal(ids, tt.ids) {
			t.Errorf("%s: sections %v; want %v", tt.name, ids, tt.ids)
		}
		cm, err := rt.CompileModule(ctx, out)
		if err != nil {
			t.Fatalf("%s: compile: %v", tt.name, err)
		}
		m, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
		if err == nil || !strings.Contains(err.Error(), "unreachable") {
			t.Fatalf("%s: instantiate = %v; want the start function's trap", tt.name, err)
		}
		if got := TableGrowth(m); got != tt.asked {
			t.Errorf("%s: TableGrowth = %d; want %d", tt.name, got, tt.asked)
		}
	}
}

// TestMayGrow: the look before a body is read finds every encoding of
// table.grow's sub-opcode, and passes bodies without one.
func TestMayGrow(t *testing.T) {
	for _, tt := range []struct {
		name string
		body []byte
		want bool
	}{
		{"table.grow", []byte{0, 0xfc, 0x0f, 0, 0x0b}, true},
		{"table.grow, its sub-opcode in two bytes", []byte{0, 0xfc, 0x8f, 0x00, 0, 0x0b}, true},
		{"after another 0xfc", []byte{0, 0xfc, 0x10, 0, 0xfc, 0x0f, 0, 0x0b}, true},
		{"table.size only", []byte{0, 0xfc, 0x10, 0, 0x0b}, false},
		{"0xfc last", []byte{0, 0x0f, 0xfc}, false},
		{"no 0xfc", []byte{0, 0x0f, 0x0b}, false},
	} {
		if got := mayGrow(tt.body); got != tt.want {
			t.Errorf("%s: mayGrow = %v; want %v", tt.name, got, tt.want)
		}
	}
}

// TestGuardGrowForms: a table declared with an initializer (0x40 0x00,
// its reference type after them) and a table.grow whose sub-opcode is
// written in two bytes are guarded like any other.
func TestGuardGrowForms(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	const trap = 1<<32 - 1 // in want: the guard's trap
	for _, tt := range []struct {
		name   string
		in     []byte
		limit  uint32
		deltas []uint64
		want   []uint64
		asked  uint64
	}{
		{"a table with an initializer", growModuleOf(cat([]byte{0x40, 0, 0x70}, noMax(1), initExpr), growBody(0x70, 0)),
			5, []uint64{4, 1}, []uint64{1, trap}, 6},
		{"a sub-opcode in two bytes", growModuleOf(cat(funcref, noMax(0)), []byte{0, 0xd0, 0x70, 0x20, 0, 0xfc, 0x8f, 0x00, 0, 0x0b}),
			3, []uint64{4}, []uint64{trap}, 4},
	} {
		out, err := Prepare(tt.in, tt.limit)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		m, err := rt.InstantiateWithConfig(ctx, out, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for i, d := range tt.deltas {
			res, err := m.ExportedFunction("grow").Call(ctx, d)
			switch {
			case tt.want[i] == trap && (err == nil || !strings.Contains(err.Error(), "unreachable")):
				t.Errorf("%s: grow(%d) = %v, %v; want the guard's trap", tt.name, d, res, err)
			case tt.want[i] != trap && (err != nil || res[0] != tt.want[i]):
				t.Errorf("%s: grow(%d) = %v, %v; want %d", tt.name, d, res, err, tt.want[i])
			}
		}
		if got := TableGrowth(m); got != tt.asked {
			t.Errorf("%s: TableGrowth = %d; want %d", tt.name, got, tt.asked)
		}
		_ = m.Close(ctx)
	}
}
