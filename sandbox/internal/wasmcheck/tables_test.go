package wasmcheck

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

const capMax = MaxTableElements

// Table types, as a table section's items.
var (
	funcref  = []byte{0x70}
	noMax    = func(min uint64) []byte { return cat([]byte{0}, leb(min)) }
	withMax  = func(min, max uint64) []byte { return cat([]byte{1}, leb(min), leb(max)) }
	capped   = func(min uint64) []byte { return withMax(min, capMax) }
	tables   = func(items ...[]byte) []byte { return sec(4, leb(uint64(len(items))), cat(items...)) }
	initExpr = []byte{0xd0, 0x70, 0x0b} // ref.null func
)

func TestCapTables(t *testing.T) {
	tests := []struct {
		name    string
		in, out []byte // out nil: the input itself (the same slice)
	}{
		{"no table section", oneFunc([]byte{0, 0x0b}), nil},
		{"an empty table section", mod(tables()), nil},
		{"no maximum", mod(tables(cat(funcref, noMax(5)))), mod(tables(cat(funcref, capped(5))))},
		{"maximum 200,000", mod(tables(cat(funcref, withMax(1, 200_000)))), mod(tables(cat(funcref, capped(1))))},
		{"maximum 2^32-1", mod(tables(cat(funcref, withMax(0, huge)))), mod(tables(cat(funcref, capped(0))))},
		{"maximum 10", mod(tables(cat(funcref, withMax(2, 10)))), nil},
		{"maximum 100,000", mod(tables(cat(funcref, withMax(0, capMax)))), nil},
		{"minimum 100,000, no maximum", mod(tables(cat(funcref, noMax(capMax)))), mod(tables(cat(funcref, capped(capMax))))},
		{"several tables", mod(
			sec(1, []byte{1, 0x60, 0, 0}),
			sec(3, []byte{1, 0}),
			tables(cat(funcref, noMax(1)), cat(funcref, withMax(0, 10)), []byte{0x6f, 0, 0}, cat(funcref, withMax(3, 1<<20))),
			sec(10, []byte{1, 2, 0, 0x0b}),
		), mod(
			sec(1, []byte{1, 0x60, 0, 0}),
			sec(3, []byte{1, 0}),
			tables(cat(funcref, capped(1)), cat(funcref, withMax(0, 10)), cat([]byte{0x6f}, capped(0)), cat(funcref, capped(3))),
			sec(10, []byte{1, 2, 0, 0x0b}),
		)},
		{"a non-canonical minimum is kept", mod(tables(cat(funcref, []byte{0, 0x85, 0x80, 0}))),
			mod(tables(cat(funcref, []byte{1, 0x85, 0x80, 0}, leb(capMax))))},
		{"(ref null func)", mod(tables(cat([]byte{0x63, 0x70}, noMax(1)))), mod(tables(cat([]byte{0x63, 0x70}, capped(1))))},
		{"an initializer expression", mod(tables(cat([]byte{0x40, 0, 0x70}, noMax(2), initExpr))),
			mod(tables(cat([]byte{0x40, 0, 0x70}, capped(2), initExpr)))},
		{"an imported table is left", mod(sec(2, str("env"), str("t"), []byte{1, 0x70, 0, 0})), nil},
		{"custom sections around", mod(custom("a", []byte{1, 2}), tables(cat(funcref, noMax(0))), custom("b", []byte{0})),
			mod(custom("a", []byte{1, 2}), tables(cat(funcref, capped(0))), custom("b", []byte{0}))},
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := bytes.Clone(tt.in)
			got, err := CapTables(in, capMax)
			if err != nil {
				t.Fatalf("CapTables = %v; want nil", err)
			}
			if !bytes.Equal(in, tt.in) {
				t.Errorf("CapTables changed its input")
			}
			if tt.out == nil {
				if len(got) == 0 || &got[0] != &in[0] || len(got) != len(in) {
					t.Errorf("CapTables = % x; want the input itself", got)
				}
				return
			}
			if !bytes.Equal(got, tt.out) {
				t.Errorf("CapTables = % x; want % x", got, tt.out)
			}
			if err := Check(got); err != nil {
				t.Errorf("Check(CapTables) = %v; want nil", err)
			}
			cm, err := rt.CompileModule(ctx, got)
			if err != nil {
				t.Fatalf("wazero refuses the capped module: %v", err)
			}
			_ = cm.Close(ctx)
		})
	}
}

// TestTablesRefused: Check and CapTables refuse a table over the limit or
// of a form they do not know, with a refusal, never a panic.
func TestTablesRefused(t *testing.T) {
	tests := []struct {
		name, want string
		mod        []byte
		limit      bool
	}{
		{"minimum 100,001", "table section: table 0's minimum is 100001 elements; at most 100000", mod(tables(cat(funcref, noMax(capMax+1)))), true},
		{"minimum 2^27, maximum too", "table 1's minimum is 134217728 elements",
			mod(tables(cat(funcref, noMax(0)), cat(funcref, withMax(1<<27, 1<<27)))), true},
		{"four tables of 2^27", "table 0's minimum is 134217728 elements", mod(tables(
			cat(funcref, noMax(1<<27)), cat(funcref, noMax(1<<27)), cat(funcref, noMax(1<<27)), cat(funcref, noMax(1<<27)))), true},
		{"shared", "a table's limits flag is 0x02", mod(tables(cat(funcref, []byte{2, 0}))), false},
		{"table64", "a table's limits flag is 0x04", mod(tables(cat(funcref, []byte{4, 0}))), false},
		{"table64 with a maximum", "a table's limits flag is 0x05", mod(tables(cat(funcref, []byte{5, 0, 1}))), false},
		{"unknown flag", "a table's limits flag is 0x80", mod(tables(cat(funcref, []byte{0x80, 0}))), false},
		{"0x40 without 0x00", "byte 0x01 after a table's 0x40 prefix", mod(tables(cat([]byte{0x40, 1, 0x70}, noMax(0), initExpr))), false},
		{"bad initializer", "opcode 0x01 in a constant expression", mod(tables(cat([]byte{0x40, 0, 0x70}, noMax(0), []byte{1, 0x0b}))), false},
		{"truncated maximum", "unexpected end", mod(tables([]byte{0x70, 1, 0, 0x80})), false},
		{"count past the bytes", "table section declares 5 tables in 4 bytes", mod(sec(4, []byte{5, 0x70, 0, 0})), false},
		{"section past the end", "declares 9 bytes but only 1 are left", mod([]byte{4, 9, 0}), false},
		{"imported shared table", "a table's limits flag is 0x03", mod(sec(2, []byte{1}, str("e"), str("t"), []byte{1, 0x70, 3, 0, 1})), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []struct {
				name string
				fn   func([]byte) error
			}{
				{"Check", Check},
				{"CapTables", func(b []byte) error { _, err := CapTables(b, capMax); return err }},
				{"Prepare", func(b []byte) error { _, err := Prepare(b, 0); return err }},
			} {
				if f.name == "CapTables" && strings.HasPrefix(tt.name, "imported") {
					continue // CapTables reads only the table section
				}
				err := f.fn(tt.mod)
				var r *refusal
				if !errors.As(err, &r) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s = %v; want a refusal containing %q", f.name, err, tt.want)
					continue
				}
				if r.overLimit != tt.limit {
					t.Errorf("%s = %q: over a limit %v; want %v", f.name, err, r.overLimit, tt.limit)
				}
			}
		})
	}
}

// TestCapTablesTruncated: every prefix of a module with tables of each
// form is refused or capped, never a panic, and the input is untouched.
func TestCapTablesTruncated(t *testing.T) {
	tabs := tables(cat(funcref, noMax(1)), cat([]byte{0x40, 0, 0x63, 0x70}, withMax(0, 1<<30), initExpr))
	full := mod(tabs, custom("x", []byte{1}))
	whole := 8 + len(tabs) // the prefixes that end between sections: 8 and whole
	for n := range len(full) {
		in := bytes.Clone(full[:n])
		_, err := CapTables(in, capMax)
		if got, want := err == nil, n == 8 || n == whole; got != want {
			t.Errorf("CapTables of %d of %d bytes = %v; want an error %v", n, len(full), err, !want)
		}
		if !bytes.Equal(in, full[:n]) {
			t.Errorf("CapTables changed its input of %d bytes", n)
		}
	}
}

// growModule defines one funcref table of the given limits and exports
// grow(n i32) i32, which does table.grow by n with null references.
func growModule(limits []byte) []byte {
	return growModuleOf(cat(funcref, limits), growBody(0x70, 0))
}

// growModuleOf defines one table (its table section item) and exports
// grow(n i32) i32 of the given body.
func growModuleOf(table, body []byte) []byte {
	return mod(
		sec(1, []byte{1, 0x60, 1, 0x7f, 1, 0x7f}),
		sec(3, []byte{1, 0}),
		tables(table),
		sec(7, []byte{1}, str("grow"), []byte{0, 0}),
		codeSec(body),
	)
}

// TestGuardedTableGrow: the prepared module compiles in wazero; its
// table.grow to more than 100,000 elements (or the limit Prepare is given)
// traps, with the size asked for in the TableGrowthExport global, as
// murmur's limiter traps it, where the module as it came grows on. A grow
// within the limit, or by 0, returns the old size as before.
func TestGuardedTableGrow(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	const trap = 1<<32 - 1 // in want: the call traps (no grow returns -1 any more)
	for _, tt := range []struct {
		name   string
		prep   func([]byte) ([]byte, error)
		limits []byte
		deltas []uint64
		want   []uint64 // each grow's result, or trap
		asked  uint64   // the TableGrowthExport global after the trap (0: no export)
	}{
		{"as it came", func(b []byte) ([]byte, error) { return b, nil }, noMax(0),
			[]uint64{capMax, 1, 1 << 20}, []uint64{0, capMax, capMax + 1}, 0},
		{"prepared, past the limit at once", func(b []byte) ([]byte, error) { return Prepare(b, 0) }, noMax(0),
			[]uint64{capMax + 1}, []uint64{trap}, capMax + 1},
		{"prepared, up to the limit then past it", func(b []byte) ([]byte, error) { return Prepare(b, 0) }, noMax(0),
			[]uint64{capMax - 1, 0, 1, 0, 1}, []uint64{0, capMax - 1, capMax - 1, capMax, trap}, capMax + 1},
		{"prepared, 2^32-1 asked", func(b []byte) ([]byte, error) { return Prepare(b, 0) }, noMax(3),
			[]uint64{1<<32 - 1}, []uint64{trap}, 1<<32 + 2},
		{"prepared, the manifest's limit raised", func(b []byte) ([]byte, error) { return Prepare(b, 2*capMax) }, noMax(0),
			[]uint64{capMax + 1, capMax - 1, 1}, []uint64{0, capMax + 1, trap}, 2*capMax + 1},
		{"prepared, the manifest's limit lowered", func(b []byte) ([]byte, error) { return Prepare(b, 10) }, noMax(0),
			[]uint64{10, 1}, []uint64{0, trap}, 11},
		{"prepared, the table's own maximum below the limit", func(b []byte) ([]byte, error) { return Prepare(b, 0) }, withMax(1, 5),
			[]uint64{4, 1}, []uint64{1, trap}, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin, err := tt.prep(growModule(tt.limits))
			if err != nil {
				t.Fatal(err)
			}
			m, err := rt.InstantiateWithConfig(ctx, bin, wazero.NewModuleConfig().WithName(""))
			if err != nil {
				t.Fatalf("instantiate: %v", err)
			}
			defer m.Close(ctx)
			for i, d := range tt.deltas {
				res, err := m.ExportedFunction("grow").Call(ctx, d)
				if tt.want[i] == trap {
					if err == nil || !strings.Contains(err.Error(), "unreachable") {
						t.Fatalf("grow(%d) = %v, %v; want the guard's trap", d, res, err)
					}
					break
				}
				if err != nil {
					t.Fatalf("grow(%d): %v", d, err)
				}
				if got := res[0] & trap; got != tt.want[i] {
					t.Errorf("grow(%d) = %d; want %d", d, int32(got), int32(tt.want[i]))
				}
			}
			if got := TableGrowth(m); got != tt.asked {
				t.Errorf("TableGrowth = %d; want %d", got, tt.asked)
			}
		})
	}
}
