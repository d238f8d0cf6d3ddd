package binary

// Type is one entry of the component type index space: a definition
// (Def), an import (Import), an alias of an instance's exported type, an
// outer alias, or an export of another entry (Export >= 0 when set by an
// export; zero value otherwise means "defined").
type Type struct {
	Def           *TypeDef
	Import        string
	AliasInstance int64
	AliasName     string
	Outer         bool
	OuterCount    uint32
	OuterIndex    uint32
	Export        int64
}

// Type kinds (the defvaltype/deftype opcodes).
const (
	TRecord   = 0x72
	TVariant  = 0x71
	TList     = 0x70
	TTuple    = 0x6f
	tFlags    = 0x6e
	TEnum     = 0x6d
	TOption   = 0x6b
	TResult   = 0x6a
	tOwn      = 0x69
	tBorrow   = 0x68
	tFixList  = 0x67
	tStream   = 0x66
	tFuture   = 0x65
	TFunc     = 0x40
	tComp     = 0x41
	tInst     = 0x42
	tResource = 0x3f
	tResAsync = 0x3e

	PBool   = 0x7f
	PString = 0x73
	PS32    = 0x7a
	PU32    = 0x79
	PU64    = 0x77
	PF64    = 0x75
	pErrCtx = 0x64
)

// NoPayload is the Index of a variant case's ValType when the case has no
// payload.
const NoPayload = ^uint32(0)

// TypeDef is a defined type. Only what the world check needs is kept:
// fields or cases with their types, element types, labels, and for
// functions params and result. Instance and component types keep their
// exported names.
type TypeDef struct {
	Kind    byte
	Labels  []string
	Fields  []ValType // record fields, variant cases (Index NoPayload = no payload), tuple elements, func params
	Elem    ValType   // list, option, result ok, own/borrow resource, func result
	Err     ValType   // result error
	HasElem bool
	HasErr  bool
	Names   []string // instance/component type: exported names
}

// ValType is a primitive (Prim != 0, one of the 0x64..0x7f opcodes) or a
// type index.
type ValType struct {
	Prim  byte
	Index uint32
}

func readValType(r *reader) ValType {
	v := r.s33()
	if v < 0 {
		p := byte(v & 0x7f)
		if !isPrim(p) {
			r.fail("bad value type %#x", p)
		}
		return ValType{Prim: p}
	}
	return ValType{Index: uint32(v)}
}

func optValType(r *reader) (ValType, bool) {
	switch t := r.byte(); t {
	case 0x00:
		return ValType{}, false
	case 0x01:
		return readValType(r), true
	default:
		r.fail("bad optional type tag %#x", t)
		return ValType{}, false
	}
}

func readDefType(r *reader, depth int) *TypeDef {
	if depth > maxDepth {
		r.fail("types nested deeper than %d", maxDepth)
		return nil
	}
	k := r.byte()
	d := &TypeDef{Kind: k}
	switch k {
	case TRecord:
		for n := r.count(2); n > 0 && r.err == nil; n-- {
			d.Labels = append(d.Labels, r.name())
			d.Fields = append(d.Fields, readValType(r))
		}
	case TVariant:
		for n := r.count(3); n > 0 && r.err == nil; n-- {
			d.Labels = append(d.Labels, r.name())
			t, ok := optValType(r)
			if !ok {
				t = ValType{Index: NoPayload}
			}
			d.Fields = append(d.Fields, t)
			if r.byte() != 0x00 {
				r.fail("variant case refinement is not supported")
			}
		}
	case TList, TOption:
		d.Elem, d.HasElem = readValType(r), true
	case tFixList:
		d.Elem, d.HasElem = readValType(r), true
		r.u32()
	case TTuple:
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			d.Fields = append(d.Fields, readValType(r))
		}
	case tFlags, TEnum:
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			d.Labels = append(d.Labels, r.name())
		}
	case TResult:
		d.Elem, d.HasElem = optValType(r)
		d.Err, d.HasErr = optValType(r)
	case tOwn, tBorrow:
		d.Elem, d.HasElem = ValType{Index: r.u32()}, true
	case tStream, tFuture:
		d.Elem, d.HasElem = optValType(r)
	case TFunc, 0x43: // 0x43: async func
		readFuncType(r, d)
	case tComp, tInst:
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			if name := readDecl(r, k == tComp, depth); name != "" {
				d.Names = append(d.Names, name)
			}
		}
	case tResource, tResAsync:
		if r.byte() != 0x7f {
			r.fail("resource representation must be i32")
		}
		if _, ok := optFunc(r); ok && k == tResAsync {
			r.u32()
		}
	default:
		if isPrim(k) {
			d.Elem, d.HasElem = ValType{Prim: k}, true // a primitive used as a defined type
			return d
		}
		r.fail("bad type opcode %#x", k)
	}
	return d
}

// readFuncType reads a function type's parameters and result into d.
func readFuncType(r *reader, d *TypeDef) {
	for n := r.count(2); n > 0 && r.err == nil; n-- {
		d.Labels = append(d.Labels, r.name())
		d.Fields = append(d.Fields, readValType(r))
	}
	switch t := r.byte(); t {
	case 0x00:
		d.Elem, d.HasElem = readValType(r), true
	case 0x01:
		if r.byte() != 0x00 {
			r.fail("named function results are not supported")
		}
	default:
		r.fail("bad function result tag %#x", t)
	}
}

func optFunc(r *reader) (uint32, bool) {
	switch r.byte() {
	case 0x00:
		return 0, false
	case 0x01:
		return r.u32(), true
	default:
		r.fail("bad optional function index")
		return 0, false
	}
}

// readDecl reads one component or instance type declaration and returns
// the name it exports or imports ("" for types and aliases).
func readDecl(r *reader, component bool, depth int) string {
	switch tag := r.byte(); tag {
	case 0x00:
		skipCoreType(r, depth+1)
	case 0x01:
		readDefType(r, depth+1)
	case 0x02:
		core, _ := readSort(r)
		switch target := r.byte(); target {
		case 0x00, 0x01:
			r.u32()
			r.name()
		case 0x02:
			r.u32()
			r.u32()
		default:
			_ = core
			r.fail("bad alias target %#x in a type declaration", target)
		}
	case 0x03:
		if !component {
			r.fail("import declaration inside an instance type")
			return ""
		}
		n := exportName(r)
		readExternDesc(r)
		return "import:" + n
	case 0x04:
		n := exportName(r)
		readExternDesc(r)
		return n
	default:
		r.fail("bad type declaration tag %#x", tag)
	}
	return ""
}

// skipCoreType reads a core:type (a function type or a module type).
func skipCoreType(r *reader, depth int) {
	if depth > maxDepth {
		r.fail("types nested deeper than %d", maxDepth)
		return
	}
	switch t := r.byte(); t {
	case 0x60:
		for i := 0; i < 2; i++ {
			for n := r.count(1); n > 0 && r.err == nil; n-- {
				coreValType(r)
			}
		}
	case 0x50:
		for n := r.count(1); n > 0 && r.err == nil; n-- {
			switch d := r.byte(); d {
			case 0x00: // import
				r.name()
				r.name()
				coreImportDesc(r)
			case 0x01:
				skipCoreType(r, depth+1)
			case 0x02:
				r.byte()
				r.byte()
				r.u32()
				r.u32()
			case 0x03:
				r.name()
				coreImportDesc(r)
			default:
				r.fail("bad module type declaration %#x", d)
			}
		}
	default:
		r.fail("core type %#x is not supported", t)
	}
}

func coreValType(r *reader) {
	switch t := r.byte(); t {
	case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
	default:
		r.fail("core value type %#x is not supported", t)
	}
}

func coreImportDesc(r *reader) {
	switch t := r.byte(); t {
	case 0x00:
		r.u32()
	case 0x01:
		coreValType(r)
		limits(r)
	case 0x02:
		limits(r)
	case 0x03:
		coreValType(r)
		r.byte()
	default:
		r.fail("core import kind %#x is not supported", t)
	}
}

func limits(r *reader) {
	switch f := r.byte(); f {
	case 0x00:
		r.u32()
	case 0x01:
		r.u32()
		r.u32()
	default:
		r.fail("limits flag %#x is not supported", f)
	}
}

// isPrim reports whether b is a primitive value type opcode.
func isPrim(b byte) bool { return b == pErrCtx || b >= PString && b <= PBool }
