package wasmcheck

// MaxTableElements is the most elements a table may hold: murmur's
// (wasmtime's) limit. wazero allocates 8 bytes an element, at
// instantiation for a table's minimum and at table.grow for the rest.
const MaxTableElements = 100_000

// table is where a table type's parts lie in the bytes read.
type table struct {
	flagOff  int // the limits' flag byte
	minOff   int // the minimum's LEB128
	minEnd   int // just past the minimum
	limitEnd int // just past the limits (past the maximum, if any)
	min, max uint32
	hasMax   bool
}

// tableType reads a table type as wazero's decodeTable does: an optional
// initializer prefix (0x40 0x00), a reference type, limits, then, with the
// prefix, a constant expression. It refuses limits wazero refuses for a
// table (shared, 0x02 and 0x03; table64 and anything else).
func tableType(s *reader, what string) table {
	init := false
	b := s.byte()
	if b == 0x40 { // a table with an initial value: 0x40 0x00 reftype limits expr
		if z := s.byte(); z != 0 && s.err == nil {
			s.fail("%s: byte 0x%02x after a table's 0x40 prefix; want 0x00", what, z)
		}
		b, init = s.byte(), true
	}
	if b == refNullable || b == refNonNullable {
		s.skipLEB(5)
	}
	t := table{flagOff: s.off}
	switch flag := s.byte(); flag {
	case 0, 1:
		t.minOff = s.off
		t.min = s.u32()
		t.minEnd = s.off
		if flag == 1 {
			t.max, t.hasMax = s.u32(), true
		}
	default:
		if s.err == nil {
			s.fail("%s: a table's limits flag is 0x%02x; want 0x00 or 0x01", what, flag)
		}
	}
	t.limitEnd = s.off
	if init {
		constExpr(s, what)
	}
	return t
}

// checkTables checks the table section: the count, each table's type, and
// each table's minimum against maxTable (wazero allocates it all at
// instantiation; wasmtime would refuse to instantiate it).
func checkTables(s *reader, maxTable uint32) {
	n := s.vec("table section", "tables", 1, maxTables)
	for i := uint32(0); i < n && s.err == nil; i++ {
		t := tableType(s, "table section")
		if s.err == nil && t.min > maxTable {
			refuseTable(s, i, t.min, maxTable)
		}
	}
}

// refuseTable fails s for table i, whose minimum is over max elements.
func refuseTable(s *reader, i, min, max uint32) {
	s.failLimit("table section: table %d's minimum is %d elements; at most %d are allowed (capabilities.limits.table_elements)",
		i, min, max)
}

// Prepare is what a caller compiles instead of mod: Check, its tables'
// minimums held to maxTable elements (0: MaxTableElements, murmur's
// default capabilities.limits.table_elements), CapTables with maxTable,
// then GuardTableGrowth. The result is mod itself when there is nothing
// to cap or guard.
func Prepare(mod []byte, maxTable uint32) ([]byte, error) {
	if maxTable == 0 {
		maxTable = MaxTableElements
	}
	if err := check(mod, maxTable); err != nil {
		return nil, err
	}
	capped, err := CapTables(mod, maxTable)
	if err != nil {
		return nil, err
	}
	return GuardTableGrowth(capped)
}

// CapTables returns mod with every table it defines declaring a maximum of
// at most max elements: a table without a maximum, or with a larger one,
// gets max; its minimum is kept, and a minimum over max is refused. wazero's
// table.grow then returns -1 past max. Tables mod imports are left as they
// are: the exporter's table, capped when it was compiled, is the one that
// grows. The result is mod itself when nothing changes, else a new slice;
// mod is never written to. A malformed table section is refused with
// Check's kind of error.
func CapTables(mod []byte, max uint32) ([]byte, error) {
	if !isCore(mod) {
		return nil, notCore()
	}
	r := reader{b: mod, off: 8}
	var out []byte
	last := 0 // mod[:last] is in out
	for r.left() > 0 && r.err == nil {
		start := r.off
		id := r.byte()
		s := r.sub(r.u32(), "a section")
		if r.err != nil {
			return nil, r.err
		}
		if id != 4 {
			continue
		}
		body, err := capSection(s.b, max)
		if err != nil {
			return nil, err
		}
		if body == nil {
			continue
		}
		out = append(out, mod[last:start]...)
		out = append(append(out, id), uleb(uint64(len(body)))...)
		out = append(out, body...)
		last = r.off
	}
	if r.err != nil {
		return nil, r.err
	}
	if out == nil {
		return mod, nil
	}
	return append(out, mod[last:]...), nil
}

// capSection returns the table section's contents b with each table's
// maximum capped at max, or nil when no table needs it.
func capSection(b []byte, max uint32) ([]byte, error) {
	s := reader{b: b}
	n := s.vec("table section", "tables", 1, maxTables)
	var out []byte
	last := 0 // b[:last] is in out
	for i := uint32(0); i < n && s.err == nil; i++ {
		t := tableType(&s, "table section")
		switch {
		case s.err != nil:
		case t.min > max:
			refuseTable(&s, i, t.min, max)
		case !t.hasMax || t.max > max:
			out = append(out, b[last:t.flagOff]...)
			out = append(append(out, 1), b[t.minOff:t.minEnd]...)
			out = append(out, uleb(uint64(max))...)
			last = t.limitEnd
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	if out == nil {
		return nil, nil
	}
	return append(out, b[last:]...), nil
}

func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func isCore(mod []byte) bool {
	return len(mod) >= 8 && string(mod[:4]) == "\x00asm" && string(mod[4:8]) == "\x01\x00\x00\x00"
}

func notCore() error {
	return &refusal{msg: "not a core WebAssembly module (no \\0asm version 1 header)"}
}
