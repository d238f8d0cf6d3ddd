package binary

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/sandbox/internal/wasmcheck"
)

// GlobalExportPrefix prefixes the names PrepareReset gives the exports it adds.
const GlobalExportPrefix = "murmur-eval:global:"

// Resettable is a core module prepared for instances that can be reset.
type Resettable struct {
	Module  []byte   // the module, with every mutable global it defines exported (a new slice; input unchanged)
	Globals []string // the added exports' names, in global index order (GlobalExportPrefix + the global's index)
	Why     string   // non-empty: instances of this module cannot be reset to their initial state; says why
}

// PrepareReset reads a core module (bytes as embedded in a component) and
// prepares it for reset: the host can save and restore an exported global
// but no other part of an instance's state besides its memory, so every
// mutable global the module defines gets an export, and a module whose code
// could change a table or a segment, or that this reader cannot vouch for
// (an instruction, type or section it does not know), has Why set. An error
// only for a malformed module (Malformed, E-RUN-001); when Why is set the
// exports are still added if the module's globals and exports could be
// read. Module is the input itself when there is nothing to add or they
// could not be read.
func PrepareReset(mod []byte) (Resettable, error) {
	secs, err := coreSections(mod)
	if err != nil {
		return Resettable{}, err
	}
	p := &prep{}
	for _, s := range secs {
		r := &reader{b: s.body, base: s.bodyOff}
		wasBlind := p.blind
		switch s.id {
		case 2:
			p.imports(r)
		case 5:
			p.memories(r)
		case 6:
			p.globals(r)
		case 7:
			p.exports(r, s)
		case 10:
			p.code(r)
		default:
			if _, ok := sectionRank(s.id); !ok && s.id != 0 {
				p.cannot("section id %d is unknown", s.id)
				p.blind = true
			}
			continue
		}
		if r.err != nil {
			return Resettable{}, r.err
		}
		if r.off != len(r.b) && p.blind == wasBlind { // a section read to its end
			return Resettable{}, Malformed(r.base+r.off, "section %d has %d bytes past its last entry", s.id, len(r.b)-r.off)
		}
	}
	if p.blind || p.collision || len(p.mutable) == 0 {
		return Resettable{Module: mod, Why: p.why}, nil
	}
	names := make([]string, len(p.mutable))
	for i, g := range p.mutable {
		names[i] = GlobalExportPrefix + strconv.FormatUint(uint64(g), 10)
	}
	return Resettable{Module: addExports(mod, secs, p, names), Globals: names, Why: p.why}, nil
}

// prep is what PrepareReset learns from the sections it reads.
type prep struct {
	why       string // the first reason instances cannot be reset
	blind     bool   // a section could not be read to its end: add no exports
	collision bool   // an export already uses GlobalExportPrefix

	importedFuncs, importedGlobals uint32
	mutable                        []uint32 // defined mutable globals' indices

	exportSec   *section
	exportCount uint32
	exportItems []byte // the export section's entries, after its count
}

func (p *prep) cannot(format string, args ...any) {
	if p.why == "" {
		p.why = fmt.Sprintf(format, args...)
	}
}

func (p *prep) imports(r *reader) {
	for n := r.count(4); n > 0 && r.err == nil; n-- {
		r.name()
		name := r.name()
		switch kind := r.byte(); kind {
		case 0x00:
			r.u32()
			p.importedFuncs++
		case 0x01:
			p.cannot("import section: imports a table (%s)", name)
			if !p.valType(r, "import section: table type") || !p.limits(r, "import section: table") {
				return
			}
		case 0x02:
			p.cannot("import section: imports a memory (%s)", name)
			if !p.limits(r, "import section: memory") {
				return
			}
		case 0x03:
			p.cannot("import section: imports a global (%s)", name)
			if !p.valType(r, "import section: global type") {
				return
			}
			if _, ok := p.mutability(r, "import section: global"); !ok {
				return
			}
			p.importedGlobals++
		default:
			p.cannot("import section: import kind %#x is unknown", kind)
			p.blind = true
			return
		}
	}
}

// valType reads a value type, setting Why (and blind) for one it does not know.
func (p *prep) valType(r *reader, what string) bool {
	t := r.byte()
	if r.err == nil && !wasmcheck.KnownValType(t) {
		p.cannot("%s %#x is unknown", what, t)
		p.blind = true
		return false
	}
	return true
}

// mutability reads a global's mutability, setting Why (and blind) for a
// flag it does not know (shared globals).
func (p *prep) mutability(r *reader, what string) (mutable, ok bool) {
	m := r.byte()
	if r.err == nil && m > 1 {
		p.cannot("%s mutability %#x is unknown (shared?)", what, m)
		p.blind = true
		return false, false
	}
	return m == 1, true
}

// limits reads a table's or memory's limits; flags beyond min/max (shared,
// 64-bit) set Why.
func (p *prep) limits(r *reader, what string) bool {
	flag := r.byte()
	switch {
	case r.err != nil:
		return false
	case flag > 7:
		p.cannot("%s: limits flag %#x is unknown", what, flag)
		p.blind = true
		return false
	case flag&2 != 0:
		p.cannot("%s: shared memory (limits flag %#x)", what, flag)
	case flag&4 != 0:
		p.cannot("%s: 64-bit limits (flag %#x)", what, flag)
	}
	uleb64(r)
	if flag&1 != 0 {
		uleb64(r)
	}
	return true
}

func (p *prep) memories(r *reader) {
	n := r.count(2)
	if n > 1 {
		p.cannot("memory section: defines %d memories (at most one)", n)
	}
	for ; n > 0 && r.err == nil; n-- {
		if !p.limits(r, "memory section") {
			return
		}
	}
}

func (p *prep) globals(r *reader) {
	n := r.count(3)
	for i := uint32(0); i < n && r.err == nil; i++ {
		g := p.importedGlobals + i
		t := r.byte()
		if r.err == nil && !wasmcheck.KnownValType(t) {
			p.cannot("global section: global %d's type %#x is unknown", g, t)
			p.blind = true
			return
		}
		mutable, ok := p.mutability(r, "global section: a global's")
		if !ok {
			return
		}
		if mutable {
			p.mutable = append(p.mutable, g)
			if t < 0x7C || t > 0x7F {
				p.cannot("global section: mutable global %d's type %#x cannot be set through wazero", g, t)
			}
		}
		if why := constExpr(r); why != "" {
			p.cannot("global section: global %d's initializer: %s", g, why)
			p.blind = true
			return
		}
	}
}

func (p *prep) exports(r *reader, s section) {
	p.exportSec = &s
	p.exportCount = r.count(3)
	p.exportItems = r.b[r.off:]
	for i := p.exportCount; i > 0 && r.err == nil; i-- {
		name := r.name()
		kind := r.byte()
		r.u32()
		if r.err == nil && kind > 4 {
			p.cannot("export section: export kind %#x is unknown", kind)
			p.blind = true
			return
		}
		if kind == 0x01 {
			p.cannot("export section: exports a table (%s), which another instance could change", name)
		}
		if strings.HasPrefix(name, GlobalExportPrefix) {
			p.cannot("export section: export %q already uses the prefix %s", name, GlobalExportPrefix)
			p.collision = true
		}
	}
}

func (p *prep) code(r *reader) {
	for i, n := uint32(0), r.count(1); i < n && r.err == nil; i++ {
		size := r.u32()
		off := r.base + r.off
		body := r.bytes(size)
		if r.err != nil {
			return
		}
		why, err := scanBody(body, off, p.importedFuncs+i)
		if err != nil {
			r.err = err
			return
		}
		if why != "" {
			p.cannot("%s", why)
		}
	}
}
