package wasmcheck

import (
	"bytes"
	"slices"

	"github.com/tetratelabs/wazero/api"
)

// TableGrowthExport names the global a guarded module exports: 0 until a
// table.grow asks past its table's maximum, then the number of elements
// that grow asked for. Read it with TableGrowth.
const TableGrowthExport = "murmur-eval:table-growth"

// GuardTableGrowth returns mod with every table.grow on a table mod
// defines replaced by a call to a function it adds, one for each such
// table: a grow to more elements than the table's maximum sets the global
// exported as TableGrowthExport to the size asked for and traps, as
// murmur's store limiter fails a grow past capabilities.limits.table_elements
// (or past the table's own maximum) rather than returning -1. Any other
// grow is done as before. Run it after CapTables, which gives every defined
// table a maximum of at most the limit.
//
// The result is mod itself when it has no table.grow to guard, and also
// when part of it is beyond this reader (an instruction it does not know,
// a rec group or typed reference, a body it cannot read, an export
// already named TableGrowthExport): there wazero's table.grow keeps
// returning -1 past the maximum. mod is never written to. The error is
// Check's kind, for a section Check would refuse.
func GuardTableGrowth(mod []byte) ([]byte, error) {
	if !isCore(mod) {
		return nil, notCore()
	}
	secs, err := splitSections(mod)
	if err != nil {
		return nil, err
	}
	g := &guard{}
	for _, s := range secs {
		if !g.read(s) {
			return mod, nil
		}
	}
	if len(g.grows) == 0 {
		return mod, nil
	}
	return g.rewrite(mod, secs), nil
}

// section is one section of a module: its id, and its contents in the module.
type section struct {
	id         byte
	start, end int // the whole section, id and size included
	body       []byte
}

// splitSections splits a core module into its sections.
func splitSections(mod []byte) ([]section, error) {
	r := reader{b: mod, off: 8}
	var secs []section
	for r.left() > 0 && r.err == nil {
		start := r.off
		id := r.byte()
		s := r.sub(r.u32(), "a section")
		if r.err == nil {
			secs = append(secs, section{id: id, start: start, end: r.off, body: s.b})
		}
	}
	return secs, r.err
}

// guard is what GuardTableGrowth learns from the sections it reads.
type guard struct {
	types, importedFuncs, funcs, importedTables, importedGlobals, globals uint32

	tables []table  // the tables the module defines
	refs   []byte   // each defined table's reference type byte
	grows  []Instr  // the table.grows on defined tables, in body order
	bodies []int    // the body index of each grow
	order  []uint32 // the tables grown, in order of first grow
}

// read reads one section; false when the module is beyond the reader.
func (g *guard) read(s section) bool {
	r := &reader{b: s.body}
	switch s.id {
	case 1:
		g.types = r.u32()
		for i := uint32(0); i < g.types && r.err == nil; i++ {
			if r.left() == 0 || r.b[r.off] != 0x60 {
				return false // a rec group or a subtype: indices are not one a type
			}
			funcType(r, i)
		}
	case 2:
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			r.name("import module")
			r.name("import name")
			switch r.byte() {
			case 0:
				r.u32()
				g.importedFuncs++
			case 1:
				tableType(r, "import")
				g.importedTables++
			case 2:
				limits(r)
			case 3:
				valType(r)
				r.byte()
				g.importedGlobals++
			case 4:
				r.byte()
				r.u32()
			default:
				return false
			}
		}
	case 3:
		g.funcs = r.u32()
		for i := uint32(0); i < g.funcs && r.err == nil; i++ {
			r.u32()
		}
	case 4:
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			ref := byte(0) // the reference type: after the 0x40 0x00 of a table with an initializer
			if at := r.off; at+2 < len(r.b) && r.b[at] == 0x40 {
				ref = r.b[at+2]
			} else if at < len(r.b) {
				ref = r.b[at]
			}
			g.tables = append(g.tables, tableType(r, "table section"))
			g.refs = append(g.refs, ref)
		}
	case 6:
		g.globals = r.u32()
		for i := uint32(0); i < g.globals && r.err == nil; i++ {
			valType(r)
			r.byte()
			constExpr(r, "global section")
		}
	case 7:
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			name := r.sub(r.u32(), "export name").b
			r.byte()
			r.u32()
			if string(name) == TableGrowthExport {
				return false
			}
		}
	case 10:
		return g.code(r) && r.left() == 0
	}
	// A section this rewrite appends to must end with its last item, or
	// what follows would be read as the items added.
	return r.err == nil && (r.left() == 0 || s.id != 1 && s.id != 3 && s.id != 6 && s.id != 7)
}

// code finds the table.grows on defined tables, body by body.
func (g *guard) code(r *reader) bool {
	n := r.u32()
	for i := 0; uint32(i) < n && r.err == nil; i++ {
		body := r.sub(r.u32(), "a body")
		if r.err != nil {
			return false
		}
		if !mayGrow(body.b) {
			continue
		}
		why, _, err := ReadBody(body.b, func(in Instr) string {
			if in.Op == 0xFC && in.Sub == 15 && in.Index >= g.importedTables {
				g.grows = append(g.grows, in)
				g.bodies = append(g.bodies, i)
			}
			return ""
		})
		if why != "" || err != nil {
			return false
		}
	}
	for _, in := range g.grows {
		t := in.Index - g.importedTables
		if int(t) >= len(g.tables) || g.refs[t] != 0x70 && g.refs[t] != 0x6F || !g.tables[t].hasMax {
			return false // a typed reference or an invalid index: wazero judges the module
		}
		if !slices.Contains(g.order, in.Index) {
			g.order = append(g.order, in.Index)
		}
	}
	return r.err == nil
}

// mayGrow reports whether body could hold a table.grow: a 0xFC byte
// followed by a sub-opcode whose LEB128's first byte has 15 in its low
// seven bits (non-canonical encodings included). Only the bodies that
// pass are read instruction by instruction: for the quickstart's 3.8 MB
// Go tool, 0.4 ms instead of 47 (BenchmarkGuardTableGrowth).
func mayGrow(body []byte) bool {
	for i := bytes.IndexByte(body, 0xFC); i >= 0 && i+1 < len(body); {
		if body[i+1]&0x7F == 0x0F {
			return true
		}
		j := bytes.IndexByte(body[i+1:], 0xFC)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// rewrite returns the guarded module: the types, functions, global, export
// and bodies added, each grow replaced by a call.
func (g *guard) rewrite(mod []byte, secs []section) []byte {
	fn := func(k int) uint32 { return g.importedFuncs + g.funcs + uint32(k) } // guard k's function index
	global := g.importedGlobals + g.globals
	typeOf := map[byte]uint32{} // reference type → the guard type's index
	var newTypes, newFuncs, newBodies []byte
	for _, t := range g.order {
		d := t - g.importedTables
		ref := g.refs[d]
		if _, ok := typeOf[ref]; !ok {
			typeOf[ref] = g.types + uint32(len(typeOf))
			newTypes = append(newTypes, 0x60, 2, ref, 0x7F, 1, 0x7F) // (ref, i32) -> i32
		}
		newFuncs = append(newFuncs, uleb(uint64(typeOf[ref]))...)
		body := guardBody(t, g.tables[d].max, global)
		newBodies = append(append(newBodies, uleb(uint64(len(body)))...), body...)
	}
	call := map[uint32][]byte{} // table → the call replacing its grows
	for k, t := range g.order {
		call[t] = append([]byte{0x10}, uleb(uint64(fn(k)))...)
	}

	out := append([]byte(nil), mod[:8]...)
	put := func(id byte, body []byte) {
		out = append(append(append(out, id), uleb(uint64(len(body)))...), body...)
	}
	added := map[byte]bool{}
	add := func(id byte) { // a section this rewrite adds where the module has none
		switch id {
		case 6:
			put(6, append([]byte{1}, growthGlobal()...))
		case 7:
			put(7, append([]byte{1}, exportItem(global)...))
		}
		added[id] = true
	}
	have := map[byte]bool{}
	for _, s := range secs {
		have[s.id] = true
	}
	for _, s := range secs {
		for _, id := range []byte{6, 7} {
			if !have[id] && !added[id] && s.id != 0 && rank(s.id) > rank(id) {
				add(id)
			}
		}
		switch s.id {
		case 1:
			put(1, appendItems(s.body, uint32(len(typeOf)), newTypes))
		case 3:
			put(3, appendItems(s.body, uint32(len(g.order)), newFuncs))
		case 6:
			put(6, appendItems(s.body, 1, growthGlobal()))
		case 7:
			put(7, appendItems(s.body, 1, exportItem(global)))
		case 10:
			put(10, g.rewriteCode(s.body, call, uint32(len(g.order)), newBodies))
		default:
			out = append(out, mod[s.start:s.end]...)
		}
	}
	for _, id := range []byte{6, 7} {
		if !have[id] && !added[id] {
			add(id)
		}
	}
	return out
}

// guardBody is the function guarding table t (maximum max), setting global
// g before it traps:
//
//	(func (param ref i32) (result i32) (local i64)
//	  (local.tee 2 (i64.add (i64.extend_i32_u (table.size t)) (i64.extend_i32_u (local.get 1))))
//	  (if (i64.gt_u (i64.const max)) (then (global.set g (local.get 2)) unreachable))
//	  (table.grow t (local.get 0) (local.get 1)))
func guardBody(t, max, g uint32) []byte {
	b := []byte{1, 1, 0x7E, 0xFC, 16} // one local, an i64; table.size
	b = append(b, uleb(uint64(t))...)
	b = append(b, 0xAD, 0x20, 1, 0xAD, 0x7C, 0x22, 2, 0x42)
	b = append(b, sleb64(int64(max))...)
	b = append(b, 0x56, 0x04, 0x40, 0x20, 2, 0x24)
	b = append(b, uleb(uint64(g))...)
	b = append(b, 0x00, opEnd, 0x20, 0, 0x20, 1, 0xFC, 15)
	b = append(b, uleb(uint64(t))...)
	return append(b, opEnd)
}

// rewriteCode returns the code section with each guarded grow replaced by
// its call, and the guards' bodies appended.
func (g *guard) rewriteCode(sec []byte, call map[uint32][]byte, added uint32, newBodies []byte) []byte {
	r := &reader{b: sec}
	n := r.u32()
	out := uleb(uint64(n + added))
	next := 0 // the next grow to replace
	for i := 0; uint32(i) < n; i++ {
		body := r.sub(r.u32(), "a body").b
		if next >= len(g.grows) || g.bodies[next] != i {
			out = append(append(out, uleb(uint64(len(body)))...), body...)
			continue
		}
		var nb bytes.Buffer
		last := 0
		for ; next < len(g.grows) && g.bodies[next] == i; next++ {
			in := g.grows[next]
			nb.Write(body[last:in.At])
			nb.Write(call[in.Index])
			last = in.End
		}
		nb.Write(body[last:])
		out = append(append(out, uleb(uint64(nb.Len()))...), nb.Bytes()...)
	}
	return append(out, newBodies...)
}

// appendItems returns a vector section's contents with n items appended.
func appendItems(body []byte, n uint32, items []byte) []byte {
	r := &reader{b: body}
	count := r.u32()
	out := uleb(uint64(count + n))
	out = append(out, body[r.off:]...)
	return append(out, items...)
}

// growthGlobal is the global TableGrowthExport exports: a mutable i64, 0.
func growthGlobal() []byte { return []byte{0x7E, 1, 0x42, 0, opEnd} }

// exportItem is the export of global g as TableGrowthExport.
func exportItem(g uint32) []byte {
	b := append(uleb(uint64(len(TableGrowthExport))), TableGrowthExport...)
	return append(append(b, 0x03), uleb(uint64(g))...)
}

// rank is a known section's place in the order the binary format requires
// (the tag section between memory and global, data count before code).
func rank(id byte) int {
	order := [...]byte{1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11}
	for i, o := range order {
		if o == id {
			return i
		}
	}
	return -1
}

func sleb64(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// TableGrowth is the number of elements a refused table.grow of m asked
// for: the value of its TableGrowthExport global, 0 if it has none (m is
// nil, or was not guarded) or no grow was refused. An instance whose call
// trapped, or that was closed, still answers.
func TableGrowth(m api.Module) uint64 {
	if m == nil {
		return 0
	}
	if g := m.ExportedGlobal(TableGrowthExport); g != nil {
		return g.Get()
	}
	return 0
}
