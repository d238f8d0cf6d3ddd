package wasmcheck

// The walkers below read items as wazero v1.12.0's decoder does
// (internal/wasm/binary), so that the counts checked are the ones wazero
// allocates by. Where wazero would refuse a byte anyway they may refuse it
// too, with their own words.

const (
	refNullable    = 0x63 // (ref null ht), then a heap type as s33
	refNonNullable = 0x64 // (ref ht)
	opEnd          = 0x0b
)

// valType skips a value type: one byte, or a reference prefix and its heap type.
func valType(r *reader) {
	if b := r.byte(); b == refNullable || b == refNonNullable {
		r.skipLEB(5)
	}
}

func checkTypes(s *reader) {
	n := s.vec("type section", "types", 1, maxTypes)
	total := uint64(n)
	for i := uint32(0); i < n && s.err == nil; i++ {
		if s.left() == 0 {
			s.fail("type section ends after %d of %d types", i, n)
			return
		}
		if s.b[s.off] != 0x4e { // not a rec group (GC proposal): one function type
			funcType(s, i)
			continue
		}
		s.byte()
		m := s.vec("type section: rec group", "types", 1, maxTypes)
		if total += uint64(m); total > maxTypes && s.err == nil {
			s.failLimit("type section declares %d types; at most %d are allowed", total, maxTypes)
		}
		for j := uint32(0); j < m && s.err == nil; j++ {
			funcType(s, i)
		}
	}
}

func funcType(s *reader, i uint32) {
	if b := s.byte(); b != 0x60 && s.err == nil {
		s.fail("type section: type %d is not a function type (0x%02x)", i, b)
		return
	}
	for range 2 { // parameters, then results
		m := s.vec("type section: type", "value types", 1, 0)
		for k := uint32(0); k < m && s.err == nil; k++ {
			valType(s)
		}
	}
}

func checkImports(s *reader) {
	n := s.vec("import section", "imports", 1, maxImports)
	for i := uint32(0); i < n && s.err == nil; i++ {
		s.name("import section: module name")
		s.name("import section: name")
		switch kind := s.byte(); kind {
		case 0: // function
			s.u32()
		case 1:
			tableType(s, "import section")
		case 2:
			limits(s)
		case 3: // global
			valType(s)
			s.byte()
		case 4: // tag
			s.byte()
			s.u32()
		default:
			s.fail("import section: import %d has kind 0x%02x", i, kind)
		}
	}
}

func limits(s *reader) {
	switch flag := s.byte(); flag {
	case 0, 2:
		s.u32()
	case 1, 3:
		s.u32()
		s.u32()
	default:
		s.fail("limits flag 0x%02x", flag)
	}
}

func checkExports(s *reader) {
	n := s.vec("export section", "exports", 1, maxExports)
	for i := uint32(0); i < n && s.err == nil; i++ {
		s.name("export section: name")
		s.byte()
		s.u32()
	}
}

// constExpr skips a constant expression, reading what wazero's
// decodeConstantExpression reads.
func constExpr(s *reader, what string) {
	for s.err == nil {
		switch op := s.byte(); op {
		case opEnd:
			return
		case 0x41, 0x23, 0xd2: // i32.const, global.get, ref.func
			s.skipLEB(5)
		case 0x42: // i64.const
			s.skipLEB(10)
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended const: add, sub, mul
		case 0x43:
			s.skip(4, "f32.const")
		case 0x44:
			s.skip(8, "f64.const")
		case 0xd0: // ref.null: a reference type byte, or a type index
			s.skipLEB(5)
		case 0xfd: // v128.const
			if sub := s.byte(); sub != 0x0c && s.err == nil {
				s.fail("%s: vector opcode 0x%02x in a constant expression", what, sub)
			}
			s.skip(16, "v128.const")
		default:
			if s.err == nil {
				s.fail("%s: opcode 0x%02x in a constant expression", what, op)
			}
		}
	}
}
