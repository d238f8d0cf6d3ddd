package wasmcheck

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

var bomb = leb(huge) // 2^32-1 in five bytes

// refused are modules Check must refuse: want is part of the message and
// limit whether it is a limit (a count that fits, past wasmparser's).
func refused() []struct {
	name, want string
	mod        []byte
	limit      bool
} {
	return []struct {
		name, want string
		mod        []byte
		limit      bool
	}{
		// One vector of each kind declaring 2^32-1 items in 5 bytes.
		{"types", "type section declares 4294967295 types in 5 bytes", mod(sec(1, bomb)), false},
		{"imports", "import section declares 4294967295 imports in 5 bytes", mod(sec(2, bomb)), false},
		{"functions", "function section declares 4294967295 functions in 5 bytes", mod(sec(3, bomb)), false},
		{"tables", "table section declares 4294967295 tables in 5 bytes", mod(sec(4, bomb)), false},
		{"memories", "memory section declares 4294967295 memories in 5 bytes", mod(sec(5, bomb)), false},
		{"globals", "global section declares 4294967295 globals in 5 bytes", mod(sec(6, bomb)), false},
		{"exports", "export section declares 4294967295 exports in 5 bytes", mod(sec(7, bomb)), false},
		{"elements", "element section declares 4294967295 segments in 5 bytes", mod(sec(9, bomb)), false},
		{"code bodies", "code section declares 4294967295 bodies in 5 bytes", mod(sec(10, bomb)), false},
		{"data", "data section declares 4294967295 segments in 5 bytes", mod(sec(11, bomb)), false},
		{"tags", "tag section declares 4294967295 tags in 5 bytes", mod(sec(13, bomb)), false},
		{"the brief's 15 bytes", "data section declares 4294967295 segments in 5 bytes",
			[]byte("\x00asm\x01\x00\x00\x00\x0b\x05\xff\xff\xff\xff\x0f"), false},
		// Vectors and lengths inside items.
		{"parameters", "type section: type declares 4294967295 value types", mod(sec(1, []byte{1, 0x60}, bomb)), false},
		{"rec group", "type section: rec group declares 4294967295 types", mod(sec(1, []byte{1, 0x4e}, bomb)), false},
		{"import module name", "import section: module name declares 4294967295 bytes", mod(sec(2, []byte{1}, bomb)), false},
		{"import name", "import section: name declares 4294967295 bytes", mod(sec(2, []byte{1, 0}, bomb)), false},
		{"export name", "export section: name declares 4294967295 bytes", mod(sec(7, []byte{1}, bomb)), false},
		{"element indices", "element section: segment declares 4294967295 elements",
			mod(sec(9, []byte{1, 0, 0x41, 0, 0x0b}, bomb)), false},
		{"element expressions", "element section: segment declares 4294967295 elements",
			mod(sec(9, []byte{1, 5, 0x70}, bomb)), false},
		{"data bytes", "data section: a segment declares 4294967295 bytes", mod(sec(11, []byte{1, 1}, bomb)), false},
		{"body size", "code section: a body declares 4294967295 bytes", mod(sec(10, []byte{1}, bomb)), false},
		{"local declarations", "code section: body 0 declares 4294967295 local declarations in 6 bytes",
			oneFunc(cat(bomb, []byte{0x0b})), false},
		// The locals limit.
		{"2^32-1 locals", "code section: body 0 declares 4294967295 locals; at most 50000", oneFunc(cat(locals(huge), []byte{0x0b})), true},
		{"50,001 locals", "code section: body 0 declares 50001 locals", oneFunc(cat(locals(25_000, 25_001), []byte{0x0b})), true},
		{"2^33 locals in pairs", "declares 8589934590 locals", oneFunc(cat(locals(huge, huge), []byte{0x0b})), true},
		// Custom sections and the name section.
		{"custom section name", "custom section declares a 4294967295-byte name in 5 bytes", mod(sec(0, bomb)), false},
		{"section past the end", "data section declares 4294967295 bytes but only 0 are left",
			[]byte("\x00asm\x01\x00\x00\x00\x0b\xff\xff\xff\xff\x0f"), false},
		{"function names", "name section: function names declares 4294967295 names in 5 bytes",
			mod(custom("name", []byte{1, 5}, bomb)), false},
		{"function name", "name section: function names declares 4294967295 bytes",
			mod(custom("name", []byte{1, 7, 1, 0}, bomb)), false},
		{"local names' functions", "name section: local names declares 4294967295 functions in 5 bytes",
			mod(custom("name", []byte{2, 5}, bomb)), false},
		{"local names", "name section: local names of a function declares 4294967295 names in 7 bytes",
			mod(custom("name", []byte{2, 7, 1, 0}, bomb)), false},
		{"module name", "name section: the module name declares 4294967295 bytes",
			mod(custom("name", []byte{0, 5}, bomb)), false},
		{"name subsection shorter than its size", "name section: subsection 1 ends 2 bytes before its size",
			mod(custom("name", []byte{1, 3, 0, 0, 0})), false},
		{"name subsection past the section", "name section: a subsection declares 9 bytes",
			mod(custom("name", []byte{1, 9, 0})), false},
		// wasmparser's other limits.
		{"101 tables", "table section declares 101 tables; at most 100", mod(sec(4, vecOf(101, []byte{0x70, 0, 0}))), true},
		{"101 memories", "memory section declares 101 memories; at most 100", mod(sec(5, vecOf(101, []byte{0, 0}))), true},
		{"100,001 imports", "import section declares 100001 imports", mod(sec(2, vecOf(100_001, []byte{0, 0, 0, 0}))), true},
		{"100,001 exports", "export section declares 100001 exports", mod(sec(7, vecOf(100_001, []byte{0, 0, 0}))), true},
		{"100,001 data segments", "data section declares 100001 segments", mod(sec(11, vecOf(100_001, []byte{1, 0}))), true},
		{"100,001 element segments", "element section declares 100001 segments", mod(sec(9, vecOf(100_001, []byte{1, 0, 0}))), true},
		{"1,000,001 functions", "function section declares 1000001 functions", mod(sec(3, vecOf(1_000_001, []byte{0}))), true},
		{"1,000,001 globals", "global section declares 1000001 globals", mod(sec(6, vecOf(1_000_001, []byte{0}))), true},
		{"1,000,001 types", "type section declares 1000001 types", mod(sec(1, vecOf(1_000_001, []byte{0}))), true},
		{"data count past 100,000", "data count section declares 100001 segments; at most 100000",
			mod(sec(12, leb(100_001))), true},
		{"data count past the data", "data count section declares 2 segments but the data section has 1",
			mod(sec(5, []byte{1, 0, 1}), sec(12, []byte{2}), sec(11, []byte{1, 1, 0})), false},
		// Malformed where Check reads.
		{"short header", "not a core WebAssembly module", []byte("\x00asm\x01\x00"), false},
		{"component", "not a core WebAssembly module", []byte("\x00asm\x0d\x00\x01\x00"), false},
		{"unknown section", "unknown section id 14", mod([]byte{14, 0}), false},
		{"bad LEB", "integer overflows 32 bits", mod([]byte{11, 0xff, 0xff, 0xff, 0xff, 0x7f}), false},
		{"truncated LEB", "unexpected end", mod([]byte{11, 0xff}), false},
		{"bad constant expression", "opcode 0x01 in a constant expression", mod(sec(11, []byte{1, 0, 1, 0x0b, 0})), false},
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, tc := range refused() {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.mod)
			if err == nil {
				t.Fatalf("Check accepted %q; want %q", tc.mod[:min(len(tc.mod), 40)], tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check = %q; want it to contain %q", err, tc.want)
			}
			var r *refusal
			if !errors.As(err, &r) || r.overLimit != tc.limit {
				t.Errorf("Check = %q: over a limit %v; want %v", err, r != nil && r.overLimit, tc.limit)
			}
		})
	}
}

// accepted are valid modules: Check must accept them, and so does wazero.
func accepted() []struct {
	name string
	mod  []byte
} {
	names := custom("name",
		sec(0, str("m")),
		sec(1, []byte{1, 0}, str("f")),
		sec(2, []byte{1, 0, 2, 0}, str("a"), []byte{1}, str("b")),
		sec(9, []byte{0}), // a subsection wazero skips
	)
	return []struct {
		name string
		mod  []byte
	}{
		{"empty", mod()},
		{"one function", oneFunc([]byte{0, 0x0b})},
		{"50,000 locals", oneFunc(cat(locals(49_999, 1), []byte{0x0b}))},
		{"a name section", oneFunc(cat(locals(2), []byte{0x0b}), names)},
		{"another custom section", oneFunc([]byte{0, 0x0b}, custom("producers", bomb))},
		{"imports, a table, elements, globals, data", mod(
			sec(1, []byte{2, 0x60, 0, 0, 0x60, 2, 0x7f, 0x7e, 1, 0x7d}),
			sec(2, []byte{3}, str("env"), str("f"), []byte{0, 1},
				str("env"), str("g"), []byte{3, 0x7f, 0},
				str("env"), str("t"), []byte{1, 0x70, 1, 1, 4}),
			sec(3, []byte{1, 0}),
			sec(4, []byte{1, 0x6f, 0, 2}),
			sec(5, []byte{1, 1, 1, 2}),
			sec(6, []byte{2, 0x7f, 0, 0x41, 0x80, 0x01, 0x0b, 0x7c, 1, 0x44}, make([]byte, 8), []byte{0x0b}),
			sec(7, []byte{1}, str("run"), []byte{0, 1}),
			sec(9, []byte{4,
				0, 0x41, 0, 0x0b, 1, 1,
				1, 0, 1, 1,
				3, 0, 1, 1,
				5, 0x70, 1, 0xd2, 1, 0x0b}),
			sec(12, []byte{2}),
			sec(10, []byte{1, 2, 0, 0x0b}),
			sec(11, []byte{2, 0, 0x23, 0, 0x0b, 2, 'h', 'i', 1, 3, 'a', 'b', 'c'}),
		)},
	}
}

func TestCheckAccepts(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for _, tc := range accepted() {
		t.Run(tc.name, func(t *testing.T) {
			if err := Check(tc.mod); err != nil {
				t.Errorf("Check = %v; want nil", err)
			}
			cm, err := rt.CompileModule(ctx, tc.mod)
			if err != nil {
				t.Fatalf("wazero refuses the test's module: %v", err)
			}
			_ = cm.Close(ctx)
		})
	}
}

func TestCheckAllocatesNothing(t *testing.T) {
	m := accepted()[5].mod
	if got := testing.AllocsPerRun(100, func() { _ = Check(m) }); got != 0 {
		t.Errorf("Check allocated %v times per run; want 0", got)
	}
	big := oneFunc(bytes.Repeat([]byte{0x01}, 1<<20)) // a million nops: no end needed by Check
	if got := testing.AllocsPerRun(10, func() { _ = Check(big) }); got != 0 {
		t.Errorf("Check allocated %v times per run on 1 MiB; want 0", got)
	}
}
