package binary

import "fmt"

// The instruction scanner behind PrepareReset: it reads every function body
// to find the instructions that change a table or a segment, and refuses
// to vouch for any opcode it does not know (it could not skip its
// immediates, and it might change state the host cannot restore).

// scanBody reads one function body (fn is its function index; off its
// offset in the module, for messages). It returns why instances of the
// module cannot be reset ("" if nothing in the body prevents it), or an
// error for a malformed body: truncated, a bad LEB128, or instructions
// ending before or after the body's size.
func scanBody(body []byte, off int, fn uint32) (why string, err error) {
	r := &reader{b: body, base: off}
	for n := r.count(2); n > 0 && r.err == nil; n-- {
		r.u32()
		if t := r.byte(); r.err == nil && !knownValType(t) {
			return fmt.Sprintf("function %d: local type %#x is unknown", fn, t), nil
		}
	}
	depth := 0
	for r.err == nil {
		at := r.off
		op := r.byte()
		if r.err != nil {
			break
		}
		why, nest := instr(r, op)
		if why != "" {
			return fmt.Sprintf("function %d: %s at byte %d", fn, why, off+at), nil
		}
		depth += nest
		if depth < 0 {
			if r.off != len(r.b) {
				return "", Malformed(off+r.off, "function %d's final end comes %d bytes before the end of its body", fn, len(r.b)-r.off)
			}
			return "", nil
		}
	}
	if r.err == nil {
		r.fail("function %d's body ends without its final end", fn)
	}
	return "", r.err
}

// knownValType reports whether t is a value type the scanner knows.
func knownValType(t byte) bool {
	return t >= 0x7B && t <= 0x7F || t == 0x70 || t == 0x6F
}

// instr reads the immediates of the instruction op: why it prevents reset
// ("" if it does not), and +1 if it opens a block, -1 if it is an end.
func instr(r *reader, op byte) (why string, nest int) {
	switch {
	case op <= 0x01 || op == 0x05 || op == 0x0F || op == 0x1A || op == 0x1B || op == 0xD1 || op >= 0x45 && op <= 0xC4:
		// unreachable nop else return drop select ref.is_null, numeric
	case op >= 0x02 && op <= 0x04: // block loop if
		return blockType(r), 1
	case op == 0x0B: // end
		return "", -1
	case op == 0x0C || op == 0x0D || op == 0x10 || op == 0x12 || op >= 0x20 && op <= 0x25 || op == 0xD2:
		r.u32() // br br_if call return_call local.* global.* table.get ref.func
	case op == 0x0E: // br_table
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			r.u32()
		}
		r.u32()
	case op == 0x11 || op == 0x13: // call_indirect return_call_indirect: type and table index
		r.u32()
		r.u32()
	case op == 0x1C: // select t*
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			if t := r.byte(); r.err == nil && !knownValType(t) {
				return fmt.Sprintf("select's value type %#x is unknown", t), 0
			}
		}
	case op == 0x26:
		return "table.set (0x26) changes a table", 0
	case op >= 0x28 && op <= 0x3E:
		memarg(r)
	case op == 0x3F || op == 0x40: // memory.size memory.grow
		r.u32()
	default:
		return constOrPrefixed(r, op), 0
	}
	return "", 0
}

// constOrPrefixed reads the constants, ref.null and the prefixed
// instructions; anything else is unknown.
func constOrPrefixed(r *reader, op byte) (why string) {
	switch op {
	case 0x41:
		sleb(r, 5)
	case 0x42:
		sleb(r, 10)
	case 0x43:
		r.bytes(4)
	case 0x44:
		r.bytes(8)
	case 0xD0:
		if ht := r.byte(); r.err == nil && ht != 0x70 && ht != 0x6F {
			return fmt.Sprintf("ref.null's heap type %#x is unknown", ht)
		}
	case 0xFC:
		return misc(r)
	case 0xFD:
		return "a SIMD instruction (0xfd prefix) is not known to the scanner"
	case 0xFE:
		return "an atomic instruction (0xfe prefix) may change shared state"
	default:
		return fmt.Sprintf("opcode %#x is unknown", op)
	}
	return ""
}

// misc reads an 0xFC-prefixed instruction.
func misc(r *reader) (why string) {
	sub := r.u32()
	switch {
	case r.err != nil || sub <= 7: // trunc_sat
	case sub == 10: // memory.copy
		r.u32()
		r.u32()
	case sub == 11 || sub == 16: // memory.fill table.size
		r.u32()
	case miscChanges(sub) != "":
		return fmt.Sprintf("%s (0xfc %d) changes a table or segment", miscChanges(sub), sub)
	default:
		return fmt.Sprintf("opcode 0xfc %d is unknown", sub)
	}
	return ""
}

// miscChanges names the 0xFC instructions that change a table or segment.
func miscChanges(sub uint32) string {
	switch sub {
	case 8:
		return "memory.init"
	case 9:
		return "data.drop"
	case 12:
		return "table.init"
	case 13:
		return "elem.drop"
	case 14:
		return "table.copy"
	case 15:
		return "table.grow"
	case 17:
		return "table.fill"
	}
	return ""
}

// memarg reads a memory argument: alignment, the memory index when the
// alignment's bit 6 says one follows (multi-memory), and the offset.
func memarg(r *reader) {
	if align := r.u32(); align&0x40 != 0 {
		r.u32()
	}
	uleb64(r)
}

// blockType reads a block type: empty (0x40), a value type, or a type
// index as a non-negative s33.
func blockType(r *reader) (why string) {
	if r.off < len(r.b) && (r.b[r.off] == 0x40 || knownValType(r.b[r.off])) {
		r.off++
		return ""
	}
	if v := r.s33(); r.err == nil && v < 0 {
		return fmt.Sprintf("block type %d is unknown", v)
	}
	return ""
}

// constExpr skips a global's initializer: constants, extended-const
// integer add/sub/mul, global.get, ref.null, ref.func and v128.const up
// to its end. It returns why it cannot (an instruction it does not know).
func constExpr(r *reader) (why string) {
	for r.err == nil {
		switch op := r.byte(); op {
		case 0x0B:
			return ""
		case 0x23, 0xD2: // global.get ref.func
			r.u32()
		case 0x6A, 0x6B, 0x6C, 0x7C, 0x7D, 0x7E: // i32/i64 add sub mul
		case 0xFD:
			if sub := r.u32(); r.err == nil && sub != 12 {
				return fmt.Sprintf("opcode 0xfd %d is unknown", sub)
			}
			r.bytes(16)
		default:
			if r.err == nil && op != 0x41 && op != 0x42 && op != 0x43 && op != 0x44 && op != 0xD0 {
				return fmt.Sprintf("opcode %#x is unknown", op)
			}
			if why := constOrPrefixed(r, op); why != "" {
				return why
			}
		}
	}
	return ""
}

// sleb skips a signed LEB128 of at most max bytes.
func sleb(r *reader, max int) {
	for i := 0; ; i++ {
		if i == max {
			r.fail("LEB128 integer too long")
			return
		}
		if c := r.byte(); r.err != nil || c&0x80 == 0 {
			return
		}
	}
}

// uleb64 skips an unsigned LEB128 of at most 10 bytes (64-bit limits and
// offsets).
func uleb64(r *reader) { sleb(r, 10) }
