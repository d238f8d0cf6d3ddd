package wasmcheck

import "fmt"

// The instruction reader: the one place that knows each instruction's
// immediates, shared by the table-growth guard (guard.go) and the
// component host's reset scanner (component/internal/binary). It knows the
// instructions of wasm 2.0 without its vector (0xFD) and atomic (0xFE)
// ones, and tail calls; anything else is unknown, and a caller that must
// read every instruction gives up on the body.

// Instr is one instruction of a function body.
type Instr struct {
	At, End int    // its offset in the body, and just past it
	Op      byte   // the opcode; 0xFC for the prefixed ones
	Sub     uint32 // a 0xFC instruction's sub-opcode
	Index   uint32 // its first index immediate (a table.grow's table), if it has one
	Nest    int    // +1 if it opens a block, -1 if it is an end
}

// BodyError is a body ReadBody could not read: truncated, a bad LEB128,
// or instructions ending before or after the body's size. At is the
// offset in the body where reading stopped.
type BodyError struct {
	At  int
	Msg string
}

func (e *BodyError) Error() string { return e.Msg }

// ReadBody reads a function body: its local declarations, then each
// instruction up to its final end, calling visit with each. It stops and
// returns why, and the body offset it concerns, when visit returns a
// reason or a local type or instruction is unknown ("local type 0x64 is
// unknown", "opcode 0x6 is unknown"). A malformed body is a *BodyError.
func ReadBody(body []byte, visit func(Instr) string) (why string, at int, err error) {
	r := &reader{b: body}
	for n := r.count(2); n > 0 && r.err == nil; n-- {
		r.u32()
		if t := r.byte(); r.err == nil && !KnownValType(t) {
			return fmt.Sprintf("local type %#x is unknown", t), r.off - 1, nil
		}
	}
	depth := 0
	for r.err == nil && r.left() > 0 {
		in, why := next(r)
		if why != "" {
			return why, in.At, nil
		}
		if r.err != nil {
			break
		}
		if why := visit(in); why != "" {
			return why, in.At, nil
		}
		if depth += in.Nest; depth < 0 {
			if r.off != len(r.b) {
				return "", 0, &BodyError{At: r.off, Msg: fmt.Sprintf("the final end comes %d bytes before the end of the body", len(r.b)-r.off)}
			}
			return "", 0, nil
		}
	}
	if r.err == nil {
		return "", 0, &BodyError{At: r.off, Msg: "the body ends without its final end"}
	}
	return "", 0, &BodyError{At: r.off, Msg: r.err.Error()}
}

// ReadConstExpr reads a constant expression at b[off:] up to its end: the
// constants, extended-const integer add, sub and mul, global.get,
// ref.null, ref.func and v128.const. It returns the offset past its end,
// why it cannot (an instruction it does not know there), or a *BodyError.
func ReadConstExpr(b []byte, off int) (end int, why string, err error) {
	r := &reader{b: b, off: off}
	for r.err == nil {
		at := r.off
		switch op := r.byte(); {
		case r.err != nil:
		case op == opEnd:
			return r.off, "", nil
		case op == 0xFD:
			if sub := r.u32(); r.err == nil && sub != 12 {
				return 0, fmt.Sprintf("opcode 0xfd %d is unknown", sub), nil
			}
			r.skip(16, "v128.const")
		case op == 0x23 || op == 0xD2 || op == 0x6A || op == 0x6B || op == 0x6C || op == 0x7C || op == 0x7D || op == 0x7E ||
			op >= 0x41 && op <= 0x44 || op == 0xD0:
			r.off = at
			if _, why := next(r); why != "" {
				return 0, why, nil
			}
		default:
			return 0, fmt.Sprintf("opcode %#x is unknown", op), nil
		}
	}
	return 0, "", &BodyError{At: r.off, Msg: r.err.Error()}
}

// KnownValType reports whether t is a value type the reader knows: the
// numeric types, v128, funcref and externref.
func KnownValType(t byte) bool {
	return t >= 0x7B && t <= 0x7F || t == 0x70 || t == 0x6F
}

// next reads one instruction and its immediates, or says why it cannot.
func next(r *reader) (in Instr, why string) {
	in.At = r.off
	op := r.byte()
	in.Op = op
	switch {
	case r.err != nil:
	case op <= 0x01 || op == 0x05 || op == 0x0F || op == 0x1A || op == 0x1B || op == 0xD1 || op >= 0x45 && op <= 0xC4:
		// unreachable nop else return drop select ref.is_null, numeric
	case op >= 0x02 && op <= 0x04: // block loop if
		why, in.Nest = blockType(r), 1
	case op == opEnd:
		in.Nest = -1
	case op == 0x0C || op == 0x0D || op == 0x10 || op == 0x12 || op >= 0x20 && op <= 0x26 || op == 0xD2:
		in.Index = r.u32() // br br_if call return_call local.* global.* table.get table.set ref.func
	case op == 0x0E: // br_table
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			r.u32()
		}
		r.u32()
	case op == 0x11 || op == 0x13: // call_indirect return_call_indirect: type, then table
		r.u32()
		in.Index = r.u32()
	case op == 0x1C: // select t*
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			if t := r.byte(); r.err == nil && !KnownValType(t) {
				why = fmt.Sprintf("select's value type %#x is unknown", t)
			}
		}
	case op >= 0x28 && op <= 0x3E:
		memarg(r)
	case op == 0x3F || op == 0x40: // memory.size memory.grow
		in.Index = r.u32()
	case op == 0x41:
		r.skipLEB(5)
	case op == 0x42:
		r.skipLEB(10)
	case op == 0x43:
		r.skip(4, "f32.const")
	case op == 0x44:
		r.skip(8, "f64.const")
	case op == 0xD0:
		if ht := r.byte(); r.err == nil && ht != 0x70 && ht != 0x6F {
			why = fmt.Sprintf("ref.null's heap type %#x is unknown", ht)
		}
	case op == 0xFC:
		in.Sub, in.Index, why = misc(r)
	case op == 0xFD:
		why = "a SIMD instruction (0xfd prefix) is not known to the reader"
	case op == 0xFE:
		why = "an atomic instruction (0xfe prefix) is not known to the reader"
	default:
		why = fmt.Sprintf("opcode %#x is unknown", op)
	}
	in.End = r.off
	return in, why
}

// misc reads a 0xFC instruction: its sub-opcode and first index.
func misc(r *reader) (sub, index uint32, why string) {
	sub = r.u32()
	switch {
	case r.err != nil || sub <= 7: // trunc_sat
	case sub == 8 || sub == 10 || sub == 12 || sub == 14:
		// memory.init data memory, memory.copy mem mem, table.init elem table, table.copy dst src
		index = r.u32()
		r.u32()
	case sub == 9 || sub == 11 || sub == 13 || sub == 15 || sub == 16 || sub == 17:
		// data.drop memory.fill elem.drop table.grow table.size table.fill
		index = r.u32()
	default:
		why = fmt.Sprintf("opcode 0xfc %d is unknown", sub)
	}
	return sub, index, why
}

// memarg reads a memory argument: alignment, the memory index when the
// alignment's bit 6 says one follows (multi-memory), and the offset.
func memarg(r *reader) {
	if align := r.u32(); align&0x40 != 0 {
		r.u32()
	}
	r.skipLEB(10)
}

// blockType reads a block type: empty (0x40), a value type, or a type
// index as a non-negative s33.
func blockType(r *reader) (why string) {
	if r.off < len(r.b) && (r.b[r.off] == 0x40 || KnownValType(r.b[r.off])) {
		r.off++
		return ""
	}
	if v := r.s33(); r.err == nil && v < 0 {
		return fmt.Sprintf("block type %d is unknown", v)
	}
	return ""
}
