package binary

import (
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// preamble is the component binary's magic and layer-1 version.
const preamble = "\x00asm\x0d\x00\x01\x00"

// maxDepth bounds nested components and types, so a hostile binary cannot
// exhaust the Go stack.
const maxDepth = 16

// Section ids of the component binary format.
const (
	secCustom       = 0
	secCoreModule   = 1
	secCoreInstance = 2
	secCoreType     = 3
	secComponent    = 4
	secInstance     = 5
	secAlias        = 6
	secType         = 7
	secCanon        = 8
	secStart        = 9
	secImport       = 10
	secExport       = 11
)

// Sorts (what an index refers to). Core sorts are 0x00 followed by one of
// the core* values; the others are component-level.
const (
	sortCoreFunc     = 0x00
	sortCoreTable    = 0x01
	sortCoreMemory   = 0x02
	sortCoreGlobal   = 0x03
	sortCoreType     = 0x10
	sortCoreModule   = 0x11
	sortCoreInstance = 0x12

	SortFunc      = 0x01
	sortValue     = 0x02
	sortType      = 0x03
	sortComponent = 0x04
	SortInstance  = 0x05
)

// Component is a decoded component: its definitions in the order of their
// index spaces. It keeps what this host needs to validate and run murmur's
// shape; custom sections are skipped.
type Component struct {
	Modules       [][]byte       // core module index space (embedded modules only)
	CoreInstances []CoreInstance // core instance index space
	CoreFuncs     []CoreFunc     // core func index space
	CoreMemories  []CoreExport   // core memory index space (always aliases)
	Canons        []Canon        // every canon definition, in order
	Funcs         []Func         // component func index space
	Types         []Type         // component type index space
	Instances     []Instance     // component instance index space
	Components    []*Component   // nested components
	Imports       []Import
	Exports       []Export
	HasStart      bool
	CoreTypes     int // entries in core type sections (unused by murmur's shape)
	OtherSorts    []string
}

// Decode reads a component binary. It never panics and never allocates much
// more than len(bin): a malformed binary is E-RUN-001.
func Decode(bin []byte) (*Component, error) {
	if len(bin) < len(preamble) || string(bin[:4]) != preamble[:4] {
		return nil, errcode.New(errcode.RunCapsule, "not a WebAssembly binary")
	}
	if string(bin[4:8]) != preamble[4:8] {
		if bin[4] == 1 && bin[5] == 0 && bin[6] == 0 && bin[7] == 0 {
			return nil, Unsupported("this is a core module, not a component")
		}
		return nil, Unsupported("component binary version %x, want layer 1 version 0x0d", bin[4:8])
	}
	return decodeComponent(bin, 0)
}

func decodeComponent(bin []byte, depth int) (*Component, error) {
	if depth > maxDepth {
		return nil, Malformed(0, "components nested deeper than %d", maxDepth)
	}
	if len(bin) < len(preamble) || string(bin[:8]) != preamble {
		return nil, Malformed(0, "bad component preamble")
	}
	b := &Component{}
	r := &reader{b: bin, off: 8}
	for !r.eof() {
		id := r.byte()
		size := r.u32()
		start := r.off
		body := r.bytes(size)
		if r.err != nil {
			return nil, r.err
		}
		sr := &reader{b: body, base: start}
		if err := b.section(id, sr, depth); err != nil {
			return nil, err
		}
		if sr.err != nil {
			return nil, sr.err
		}
		if id != secCustom && sr.off != len(body) {
			return nil, Malformed(start+sr.off, "section %d has %d trailing bytes", id, len(body)-sr.off)
		}
	}
	return b, r.err
}

func (b *Component) section(id byte, r *reader, depth int) error {
	switch id {
	case secCustom:
		r.name()
		r.off = len(r.b)
	case secCoreModule:
		b.Modules = append(b.Modules, r.b)
		r.off = len(r.b)
	case secComponent:
		c, err := decodeComponent(r.b, depth+1)
		if err != nil {
			return err
		}
		b.Components = append(b.Components, c)
		r.off = len(r.b)
	case secCoreInstance:
		for n := r.count(2); n > 0 && r.err == nil; n-- {
			b.CoreInstances = append(b.CoreInstances, readCoreInstance(r))
		}
	case secCoreType:
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			skipCoreType(r, depth)
			b.CoreTypes++
		}
	case secInstance:
		for n := r.count(2); n > 0 && r.err == nil; n-- {
			b.Instances = append(b.Instances, readInstance(r))
		}
	case secAlias:
		for n := r.count(3); n > 0 && r.err == nil; n-- {
			b.alias(r)
		}
	case secType:
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			b.Types = append(b.Types, Type{Def: readDefType(r, depth)})
		}
	case secCanon:
		for n := r.count(2); n > 0 && r.err == nil; n-- {
			b.canon(r)
		}
	case secStart:
		b.HasStart = true
		r.off = len(r.b)
	case secImport:
		for n := r.count(3); n > 0 && r.err == nil; n-- {
			b.importDecl(r)
		}
	case secExport:
		for n := r.count(3); n > 0 && r.err == nil; n-- {
			b.exportDecl(r)
		}
	default:
		r.fail("unknown section id %d", id)
	}
	return nil
}
