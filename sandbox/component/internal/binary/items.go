package binary

// CoreInstance is a core instance definition: either the instantiation of a
// core module (Module >= 0) with named argument instances, or a bag of
// exports gathered from other core definitions (Module == -1).
type CoreInstance struct {
	Module  int
	Args    []CoreArg
	Exports []CoreExport
}

// CoreArg passes core instance Instance as the import module Name.
type CoreArg struct {
	Name     string
	Instance uint32
}

// CoreExport names a core definition: Sort (a core sort) and Index, or,
// for an alias, the export Name of core instance Instance.
type CoreExport struct {
	Name     string
	Sort     byte
	Index    uint32
	Instance uint32
}

// CoreFunc is one entry of the core func index space: the result of canon
// definition Canon (>= 0), or the export Alias.Name of core instance
// Alias.Instance.
type CoreFunc struct {
	Canon int
	Alias CoreExport
}

// Canon is a canon definition.
type Canon struct {
	Op         byte // CanonLift, CanonLower, CanonResourceDrop, or another (refused) opcode
	CoreFunc   uint32
	Func       uint32
	Type       uint32
	Encoding   byte // 0 utf8 (also when absent), 1 utf16, 2 latin1+utf16
	Memory     int64
	Realloc    int64
	PostReturn int64
	Async      bool
	Callback   bool
}

const (
	CanonLift         = 0x00
	CanonLower        = 0x01
	canonResourceNew  = 0x02
	CanonResourceDrop = 0x03
	canonResourceRep  = 0x04
)

// Func is one entry of the component func index space.
type Func struct {
	Canon    int    // a canon lift, or -1
	Import   string // an imported func, or ""
	Instance int64  // an alias of export Name of instance Instance, or -1
	Name     string
}

// Instance is one entry of the component instance index space.
type Instance struct {
	Import    string // imported under this name, or ""
	Component int64  // instantiates nested component Component, or -1
	Args      []Arg
	Exports   []Arg // a bag of exports (Component == -1, Import == "")
}

// Arg names a component-level definition.
type Arg struct {
	Name  string
	Sort  byte
	Index uint32
}

// Import is a component-level import.
type Import struct {
	Name string
	Desc ExternDesc
}

// Export is a component-level export of definition Sort/Index.
type Export struct {
	Name  string
	Sort  byte
	Index uint32
}

// ExternDesc describes an import: its sort and, for funcs, instances and
// components, a type index.
type ExternDesc struct {
	Sort  byte
	Index uint32
}

func readCoreInstance(r *reader) CoreInstance {
	switch tag := r.byte(); tag {
	case 0x00:
		ci := CoreInstance{Module: int(r.u32())}
		for n := r.count(3); n > 0 && r.err == nil; n-- {
			name := r.name()
			if s := r.byte(); s != sortCoreInstance && r.err == nil {
				r.fail("core instantiate argument %q has sort %#x, want instance", name, s)
			}
			ci.Args = append(ci.Args, CoreArg{Name: name, Instance: r.u32()})
		}
		return ci
	case 0x01:
		ci := CoreInstance{Module: -1}
		for n := r.count(3); n > 0 && r.err == nil; n-- {
			name := r.name()
			s := r.byte()
			ci.Exports = append(ci.Exports, CoreExport{Name: name, Sort: s, Index: r.u32()})
		}
		return ci
	default:
		r.fail("bad core instance tag %#x", tag)
		return CoreInstance{}
	}
}

func readSort(r *reader) (core bool, s byte) {
	s = r.byte()
	if s == 0x00 {
		return true, r.byte()
	}
	if s > SortInstance {
		r.fail("bad sort %#x", s)
	}
	return false, s
}

func readInstance(r *reader) Instance {
	switch tag := r.byte(); tag {
	case 0x00:
		in := Instance{Component: int64(r.u32())}
		for n := r.count(3); n > 0 && r.err == nil; n-- {
			name := r.name()
			core, s := readSort(r)
			if core {
				s |= 0x80
			}
			in.Args = append(in.Args, Arg{Name: name, Sort: s, Index: r.u32()})
		}
		return in
	case 0x01:
		in := Instance{Component: -1}
		for n := r.count(3); n > 0 && r.err == nil; n-- {
			name := exportName(r)
			core, s := readSort(r)
			if core {
				s |= 0x80
			}
			in.Exports = append(in.Exports, Arg{Name: name, Sort: s, Index: r.u32()})
		}
		return in
	default:
		r.fail("bad instance tag %#x", tag)
		return Instance{}
	}
}

// exportName reads exportname' / importname' (0x00 name, or 0x01 name
// followed by a version suffix).
func exportName(r *reader) string {
	switch tag := r.byte(); tag {
	case 0x00:
		return r.name()
	case 0x01:
		n := r.name()
		r.name()
		return n
	default:
		r.fail("bad name tag %#x", tag)
		return ""
	}
}

func (b *Component) alias(r *reader) {
	core, s := readSort(r)
	target := r.byte()
	var inst, outer, idx uint32
	var name string
	switch target {
	case 0x00, 0x01:
		inst = r.u32()
		name = r.name()
	case 0x02:
		outer = r.u32()
		idx = r.u32()
	default:
		r.fail("bad alias target %#x", target)
		return
	}
	if r.err != nil {
		return
	}
	if target != 0x02 && (target == 0x01) != core {
		r.fail("alias target %#x does not match its sort", target)
		return
	}
	switch {
	case core && s == sortCoreFunc:
		b.CoreFuncs = append(b.CoreFuncs, CoreFunc{Canon: -1, Alias: CoreExport{Name: name, Instance: inst, Sort: s}})
	case core && s == sortCoreMemory:
		b.CoreMemories = append(b.CoreMemories, CoreExport{Name: name, Instance: inst, Sort: s})
	case core && s == sortCoreModule:
		b.OtherSorts = append(b.OtherSorts, "core module alias")
		b.Modules = append(b.Modules, nil)
	case core && s == sortCoreInstance:
		b.OtherSorts = append(b.OtherSorts, "core instance alias")
		b.CoreInstances = append(b.CoreInstances, CoreInstance{Module: -2})
	case core: // tables, globals, core types: not used by the host
	case s == SortFunc:
		if target != 0x00 {
			b.OtherSorts = append(b.OtherSorts, "outer func alias")
		}
		b.Funcs = append(b.Funcs, Func{Canon: -1, Instance: int64(inst), Name: name})
	case s == sortType:
		b.Types = append(b.Types, Type{AliasInstance: int64(inst), AliasName: name, Outer: target == 0x02, OuterCount: outer, OuterIndex: idx})
	case s == SortInstance:
		b.OtherSorts = append(b.OtherSorts, "instance alias")
		b.Instances = append(b.Instances, Instance{Component: -2})
	case s == sortComponent:
		b.OtherSorts = append(b.OtherSorts, "component alias")
		b.Components = append(b.Components, nil)
	default:
		b.OtherSorts = append(b.OtherSorts, "value alias")
	}
}

func (b *Component) canon(r *reader) {
	c := Canon{Op: r.byte(), Memory: -1, Realloc: -1, PostReturn: -1}
	switch c.Op {
	case CanonLift:
		if r.byte() != 0x00 {
			r.fail("bad canon lift encoding")
			return
		}
		c.CoreFunc = r.u32()
		readCanonOpts(r, &c)
		c.Type = r.u32()
		b.Funcs = append(b.Funcs, Func{Canon: len(b.Canons), Instance: -1})
	case CanonLower:
		if r.byte() != 0x00 {
			r.fail("bad canon lower encoding")
			return
		}
		c.Func = r.u32()
		readCanonOpts(r, &c)
		b.CoreFuncs = append(b.CoreFuncs, CoreFunc{Canon: len(b.Canons)})
	case canonResourceNew, CanonResourceDrop, canonResourceRep:
		c.Type = r.u32()
		b.CoreFuncs = append(b.CoreFuncs, CoreFunc{Canon: len(b.Canons)})
	default:
		// Async built-ins and the rest have operands this reader does not
		// know, so it cannot continue past them.
		r.fail("canon opcode %#x is not supported", c.Op)
		return
	}
	b.Canons = append(b.Canons, c)
}

func readCanonOpts(r *reader, c *Canon) {
	for n := r.count(1); n > 0 && r.err == nil; n-- {
		switch o := r.byte(); o {
		case 0x00, 0x01, 0x02:
			c.Encoding = o
		case 0x03:
			c.Memory = int64(r.u32())
		case 0x04:
			c.Realloc = int64(r.u32())
		case 0x05:
			c.PostReturn = int64(r.u32())
		case 0x06:
			c.Async = true
		case 0x07:
			r.u32()
			c.Callback = true
		default:
			r.fail("bad canonical option %#x", o)
		}
	}
}

func (b *Component) importDecl(r *reader) {
	name := exportName(r)
	d := readExternDesc(r)
	b.Imports = append(b.Imports, Import{Name: name, Desc: d})
	switch d.Sort {
	case SortFunc:
		b.Funcs = append(b.Funcs, Func{Canon: -1, Import: name, Instance: -1})
	case SortInstance:
		b.Instances = append(b.Instances, Instance{Import: name, Component: -1})
	case sortType:
		b.Types = append(b.Types, Type{Import: name})
	case sortComponent:
		b.Components = append(b.Components, nil)
	case sortCoreModule | 0x80:
		b.Modules = append(b.Modules, nil)
	}
}

func readExternDesc(r *reader) ExternDesc {
	switch s := r.byte(); s {
	case 0x00:
		if r.byte() != sortCoreModule {
			r.fail("bad core extern descriptor")
		}
		return ExternDesc{Sort: sortCoreModule | 0x80, Index: r.u32()}
	case SortFunc, sortComponent, SortInstance:
		return ExternDesc{Sort: s, Index: r.u32()}
	case sortValue:
		if r.byte() == 0x00 {
			r.u32()
		} else {
			readValType(r)
		}
		return ExternDesc{Sort: s}
	case sortType:
		switch t := r.byte(); t {
		case 0x00:
			return ExternDesc{Sort: s, Index: r.u32()}
		case 0x01:
			return ExternDesc{Sort: s}
		default:
			r.fail("bad type bound %#x", t)
		}
	default:
		r.fail("bad extern descriptor %#x", s)
	}
	return ExternDesc{}
}

func (b *Component) exportDecl(r *reader) {
	name := exportName(r)
	core, s := readSort(r)
	if core {
		s |= 0x80
	}
	e := Export{Name: name, Sort: s, Index: r.u32()}
	switch r.byte() {
	case 0x00:
	case 0x01:
		readExternDesc(r)
	default:
		r.fail("bad export type ascription")
	}
	b.Exports = append(b.Exports, e)
	// An export also defines a new index in its sort's space.
	switch s {
	case SortFunc:
		b.Funcs = append(b.Funcs, Func{Canon: -1, Instance: -1, Import: "", Name: "export:" + name})
		if int(e.Index) < len(b.Funcs)-1 {
			b.Funcs[len(b.Funcs)-1] = b.Funcs[e.Index]
		}
	case SortInstance:
		b.Instances = append(b.Instances, Instance{Component: -2})
	case sortType:
		b.Types = append(b.Types, Type{AliasInstance: -1, Outer: false, Export: int64(e.Index)})
	case sortComponent:
		b.Components = append(b.Components, nil)
	}
}
