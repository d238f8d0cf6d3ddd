// Package wasmcheck refuses a core WebAssembly module whose declared counts
// cannot be true before wazero compiles it. wazero v1.12.0 sizes a vector by
// the count its binary declares before reading a single item: 15 bytes
// declaring 2^32-1 data segments make it ask for hundreds of gigabytes, and
// the Go runtime ends the whole process with "fatal error: runtime: out of
// memory", which no recover catches. Check walks the sections the way
// wazero's decoder reads them and refuses any count or length that cannot
// fit in the bytes left, and any count past the limits wasmtime's parser
// (wasmparser) sets, so that no module murmur would run is refused.
//
// Tables are sized by their limits, not their bytes: Check refuses a
// defined table whose minimum is over murmur's 100,000 elements, and
// CapTables gives every defined table a maximum of at most that, so
// table.grow cannot take one further; GuardTableGrowth makes a grow past
// it trap, as murmur's limiter does, instead of returning -1. Callers
// compile what Prepare (all three) returns. The instruction reader
// (ReadBody) is shared with the component host's reset scanner.
//
// Check is linear in the module's size, allocates nothing by a declared
// count and never panics; it is safe for concurrent use, as are CapTables,
// GuardTableGrowth and Prepare.
package wasmcheck

import "fmt"

// wasmparser's limits, for the vectors wazero allocates by count.
const (
	maxTypes     = 1_000_000
	maxFunctions = 1_000_000
	maxImports   = 100_000
	maxExports   = 100_000
	maxGlobals   = 1_000_000
	maxData      = 100_000
	maxElements  = 100_000
	maxTables    = 100
	maxMemories  = 100
	maxTags      = 1_000_000
	maxLocals    = 50_000 // MAX_WASM_FUNCTION_LOCALS, in total per function
)

// sectionName names section id ("data section"), or returns "" for an unknown id.
func sectionName(id byte) string {
	names := [...]string{"custom section", "type section", "import section", "function section",
		"table section", "memory section", "global section", "export section", "start section",
		"element section", "code section", "data section", "data count section", "tag section"}
	if int(id) >= len(names) {
		return ""
	}
	return names[id]
}

// Check refuses mod, a core module's binary, if any count or length it
// declares cannot fit in the bytes that follow it or exceeds wasmparser's
// limit, or if it is malformed where those are read. The error is plain
// and lowercase, naming the section and the count; callers wrap it.
func Check(mod []byte) error { return check(mod, MaxTableElements) }

// check is Check with tables' minimums held to maxTable elements.
func check(mod []byte, maxTable uint32) error {
	if !isCore(mod) {
		return notCore()
	}
	r := reader{b: mod, off: 8}
	data := counts{maxTable: maxTable}
	for r.left() > 0 && r.err == nil {
		id := r.byte()
		if sectionName(id) == "" {
			return &refusal{msg: fmt.Sprintf("unknown section id %d at byte %d", id, r.off-1)}
		}
		s := r.sub(r.u32(), sectionName(id))
		if r.err != nil {
			return r.err
		}
		checkSection(&s, id, &data)
		if s.err != nil {
			return s.err
		}
	}
	if r.err != nil {
		return r.err
	}
	if data.hasCount && data.declared > data.segments {
		return &refusal{msg: fmt.Sprintf("data count section declares %d segments but the data section has %d",
			data.declared, data.segments)}
	}
	return nil
}

// counts remembers the data count section's value for the data section,
// which comes after the code.
type counts struct {
	hasCount bool
	declared uint32
	segments uint32
	maxTable uint32 // the most elements a table's minimum may be
}

func checkSection(s *reader, id byte, data *counts) {
	what := sectionName(id)
	switch id {
	case 0:
		checkCustom(s)
	case 1:
		checkTypes(s)
	case 2:
		checkImports(s)
	case 3:
		s.vec(what, "functions", 1, maxFunctions)
	case 4:
		checkTables(s, data.maxTable)
	case 5:
		s.vec(what, "memories", 1, maxMemories)
	case 6:
		s.vec(what, "globals", 1, maxGlobals)
	case 7:
		checkExports(s)
	case 8:
		s.u32()
	case 9:
		checkElements(s)
	case 10:
		checkCode(s)
	case 11:
		data.segments = checkData(s)
	case 12:
		data.hasCount, data.declared = true, s.u32()
		if s.err == nil && data.declared > maxData {
			s.failLimit("data count section declares %d segments; at most %d are allowed", data.declared, maxData)
		}
	case 13:
		s.vec(what, "tags", 1, maxTags)
	}
}
