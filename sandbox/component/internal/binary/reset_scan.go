package binary

import (
	"errors"
	"fmt"

	"github.com/murmur-nexus/murmur-eval/sandbox/internal/wasmcheck"
)

// The instruction scan behind PrepareReset: it reads every function body
// (with wasmcheck's instruction reader, the one shared with the
// table-growth guard) to find the instructions that change a table or a
// segment, and refuses to vouch for any instruction the reader does not
// know (it could not skip its immediates, and it might change state the
// host cannot restore).

// scanBody reads one function body (fn is its function index; off its
// offset in the module, for messages). It returns why instances of the
// module cannot be reset ("" if nothing in the body prevents it), or an
// error for a malformed body: truncated, a bad LEB128, or instructions
// ending before or after the body's size.
func scanBody(body []byte, off int, fn uint32) (why string, err error) {
	why, at, err := wasmcheck.ReadBody(body, changes)
	var be *wasmcheck.BodyError
	if errors.As(err, &be) {
		return "", Malformed(off+be.At, "function %d: %s", fn, be.Msg)
	}
	if why != "" {
		return fmt.Sprintf("function %d: %s at byte %d", fn, why, off+at), nil
	}
	return "", nil
}

// changes says why an instruction changes a table or a segment, which a
// reset cannot restore ("" if it does not).
func changes(in wasmcheck.Instr) string {
	if in.Op == 0x26 {
		return "table.set (0x26) changes a table"
	}
	if in.Op != 0xFC {
		return ""
	}
	var name string
	switch in.Sub {
	case 8:
		name = "memory.init"
	case 9:
		name = "data.drop"
	case 12:
		name = "table.init"
	case 13:
		name = "elem.drop"
	case 14:
		name = "table.copy"
	case 15:
		name = "table.grow"
	case 17:
		name = "table.fill"
	default:
		return ""
	}
	return fmt.Sprintf("%s (0xfc %d) changes a table or segment", name, in.Sub)
}

// constExpr skips a global's initializer (wasmcheck.ReadConstExpr) and
// returns why it cannot (an instruction it does not know).
func constExpr(r *reader) (why string) {
	if r.err != nil {
		return ""
	}
	end, why, err := wasmcheck.ReadConstExpr(r.b, r.off)
	var be *wasmcheck.BodyError
	switch {
	case errors.As(err, &be):
		r.off = be.At
		r.fail("%s", be.Msg)
	case why == "":
		r.off = end
	}
	return why
}

// uleb64 skips an unsigned LEB128 of at most 10 bytes (64-bit limits and
// offsets).
func uleb64(r *reader) {
	for i := 0; ; i++ {
		if i == 10 {
			r.fail("LEB128 integer too long")
			return
		}
		if c := r.byte(); r.err != nil || c&0x80 == 0 {
			return
		}
	}
}
