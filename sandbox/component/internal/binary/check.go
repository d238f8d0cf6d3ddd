package binary

import (
	"fmt"
	"strings"
)

// Checks of wit-component's shape that hold whatever murmur's world:
// sandbox/component checks a world's exports and types with them.

// CheckCommon checks what murmur's shape is whatever the world: no start
// function or other sorts, only lift, lower and resource.drop with UTF-8
// and no async, every import an interface instance that allowed accepts
// (its reason otherwise), and type-only nested components.
func (b *Component) CheckCommon(allowed func(name string) (why string, ok bool)) error {
	if b.HasStart {
		return Unsupported("a component start function")
	}
	if len(b.OtherSorts) > 0 {
		return Unsupported("%s", b.OtherSorts[0])
	}
	for _, c := range b.Canons {
		switch {
		case c.Op != CanonLift && c.Op != CanonLower && c.Op != CanonResourceDrop:
			return Unsupported("canon opcode %#x (only lift, lower and resource.drop)", c.Op)
		case c.Async || c.Callback:
			return Unsupported("async canonical options")
		case c.Encoding != 0:
			return Unsupported("string encoding other than UTF-8")
		}
	}
	for _, im := range b.Imports {
		if im.Desc.Sort != SortInstance {
			return Unsupported("import %s is not an interface instance", im.Name)
		}
		if why, ok := allowed(im.Name); !ok {
			return Unsupported("%s", why)
		}
	}
	for _, c := range b.Components {
		if c == nil || len(c.Modules) > 0 || len(c.Canons) > 0 || len(c.Components) > 0 {
			return Unsupported("a nested component with code (only wit-component's type-export wrappers are supported)")
		}
	}
	return nil
}

// NoFuncError is an export without the function asked for (FindLift).
type NoFuncError struct{ err error }

func (e *NoFuncError) Error() string { return e.err.Error() }
func (e *NoFuncError) Unwrap() error { return e.err }

// Index is s[i], and whether i is in range.
func Index[T any](s []T, i uint32) (T, bool) {
	if int64(i) >= int64(len(s)) {
		var zero T
		return zero, false
	}
	return s[i], true
}

// FindLift follows the instance export (murmur's world's, world naming it
// in messages) to the canon lift of its function fn. A function the export
// does not have is a *NoFuncError.
func (b *Component) FindLift(export, world, fn string) (Canon, error) {
	var exp *Export
	for i := range b.Exports {
		if b.Exports[i].Name == export {
			exp = &b.Exports[i]
		}
	}
	if exp == nil {
		var names []string
		for _, e := range b.Exports {
			names = append(names, e.Name)
		}
		for _, n := range names {
			if base, _, _ := strings.Cut(n, "@"); base == unversioned(export) {
				return Canon{}, Unsupported("component exports %s: only %s is accepted (murmur's %s world)", n, export, world)
			}
		}
		return Canon{}, Unsupported("component does not export %s (murmur's %s world); it exports [%s]", export, world, strings.Join(names, ", "))
	}
	if exp.Sort != SortInstance {
		return Canon{}, Unsupported("export %s is not an instance", export)
	}
	in, ok := Index(b.Instances, exp.Index)
	if !ok {
		return Canon{}, Malformed(0, "export %s names instance %d which does not exist", export, exp.Index)
	}
	var args []Arg
	switch {
	case in.Component >= 0:
		args = in.Args
	case in.Component == -1 && in.Import == "":
		args = in.Exports
	default:
		return Canon{}, Unsupported("export %s is not built from a lifted function", export)
	}
	var fi int64 = -1
	for _, a := range args {
		if a.Sort == SortFunc && (a.Name == fn || a.Name == "import-func-"+fn) {
			fi = int64(a.Index)
		}
	}
	if fi < 0 {
		return Canon{}, &NoFuncError{Unsupported("export %s has no %s function", export, fn)}
	}
	f, ok := Index(b.Funcs, uint32(fi))
	if !ok || f.Canon < 0 {
		return Canon{}, Unsupported("export %s's %s is not a canon lift", export, fn)
	}
	lift := b.Canons[f.Canon]
	if _, ok := Index(b.CoreFuncs, lift.CoreFunc); !ok {
		return Canon{}, Malformed(0, "canon lift names core func %d which does not exist", lift.CoreFunc)
	}
	return lift, nil
}

// CheckOptions checks that lift's and every canon's memory and realloc are
// the main module's "memory" and "cabi_realloc", or the adapter's
// "cabi_import_realloc" (adapterInst < 0: no adapter).
func (b *Component) CheckOptions(lift Canon, mainInst uint32, adapterInst int64) error {
	for _, c := range append([]Canon{lift}, b.Canons...) {
		if c.Memory >= 0 {
			m, ok := Index(b.CoreMemories, uint32(c.Memory))
			if !ok || m.Instance != mainInst || m.Name != "memory" {
				return Unsupported("a canonical option's memory is not the main module's memory")
			}
		}
		if c.Realloc >= 0 {
			f, ok := Index(b.CoreFuncs, uint32(c.Realloc))
			fromMain := f.Alias.Instance == mainInst && f.Alias.Name == "cabi_realloc"
			fromAdapter := int64(f.Alias.Instance) == adapterInst && f.Alias.Name == "cabi_import_realloc"
			if !ok || f.Canon >= 0 || !fromMain && !fromAdapter {
				return Unsupported("a canonical option's realloc is not the main module's cabi_realloc")
			}
		}
	}
	return nil
}

// CheckModules checks that every module but main is wit-component's shim
// or fixup, or the preview-1 adapter a main module importing
// wasi_snapshot_preview1 needs, and that main is instantiated exactly once.
// It returns the adapter's module index, -1 for none.
func (b *Component) CheckModules(main int) (adapter int, err error) {
	adapter = -1
	if main >= len(b.Modules) || b.Modules[main] == nil {
		return -1, Unsupported("the main core module is imported, not embedded")
	}
	if n := instantiations(b, main); n != 1 {
		return -1, Unsupported("the main core module is instantiated %d times", n)
	}
	mainP1 := false
	for i, m := range b.Modules {
		mods, err := CoreImportModules(m)
		if err != nil {
			return -1, err
		}
		switch {
		case i == main:
			for _, name := range mods {
				mainP1 = mainP1 || name == AdapterModule
			}
		case isAdapter(mods):
			if adapter >= 0 {
				return -1, Unsupported("more than one preview-1 adapter module")
			}
			if n := instantiations(b, i); n != 1 {
				return -1, Unsupported("the preview-1 adapter is instantiated %d times", n)
			}
			adapter = i
		default:
			for _, name := range mods {
				// A fixup imports "main" for the main module's
				// _initialize when it exports one (wit-component 0.2xx
				// runs it from the fixup's start); this host calls
				// _initialize itself, and the fixup never runs.
				if name != "" && name != "actual" && name != "shim" && name != "main" {
					return -1, Unsupported("core module %d imports %q: only wit-component's shim, fixup and preview-1 adapter may accompany the main module", i, name)
				}
			}
		}
	}
	if mainP1 && adapter < 0 {
		return -1, Unsupported("the main module imports %s but the component has no adapter for it", AdapterModule)
	}
	if !mainP1 && adapter >= 0 {
		return -1, Unsupported("a preview-1 adapter that the main module does not use")
	}
	if max := 3 + btoi(adapter >= 0); len(b.Modules) > max {
		return -1, Unsupported("%d core modules (at most a main module, a shim, a fixup and a preview-1 adapter)", len(b.Modules))
	}
	return adapter, nil
}

func instantiations(b *Component, module int) int {
	n := 0
	for _, ci := range b.CoreInstances {
		if ci.Module == module {
			n++
		}
	}
	return n
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// AdapterModule is the module a preview-1 main module imports, which the
// adapter implements.
const AdapterModule = "wasi_snapshot_preview1"

// isAdapter reports whether a core module's imports are those of a
// preview-1 adapter: the main module's memory and allocator plus WASI 0.2.
func isAdapter(mods []string) bool {
	seen := false
	for _, m := range mods {
		switch {
		case m == "env" || m == "__main_module__":
			seen = true
		case strings.HasPrefix(m, "wasi:") && strings.Contains(m, "@0.2."):
		default:
			return false
		}
	}
	return seen
}

// AdapterInstance is the core instance index of module adapter, -1 for
// none (adapter < 0).
func (b *Component) AdapterInstance(adapter int) int64 {
	if adapter < 0 {
		return -1
	}
	for i, ci := range b.CoreInstances {
		if ci.Module == adapter {
			return int64(i)
		}
	}
	return -1
}

// Resolve follows a type index through exports to its definition, nil if
// it leads nowhere.
func (b *Component) Resolve(v ValType) *TypeDef {
	for i := 0; i < 8 && v.Prim == 0; i++ {
		t, ok := Index(b.Types, v.Index)
		if !ok {
			return nil
		}
		if t.Def != nil {
			return t.Def
		}
		if t.Export > 0 || (t.AliasInstance == -1 && t.Export == 0 && t.Import == "" && !t.Outer && t.AliasName == "") {
			v = ValType{Index: uint32(t.Export)}
			continue
		}
		return nil
	}
	return nil
}

// Shape renders a type structurally ("record{data:option<string>}"), so
// two definitions of one WIT type in different index spaces compare equal.
func (b *Component) Shape(v ValType) string { return shape(b, v, 0) }

func shape(b *Component, v ValType, depth int) string {
	if depth > 8 {
		return "?"
	}
	if v.Prim != 0 {
		switch v.Prim {
		case PBool:
			return "bool"
		case PString:
			return "string"
		case PS32:
			return "s32"
		case PU32:
			return "u32"
		case PU64:
			return "u64"
		case PF64:
			return "f64"
		}
		return fmt.Sprintf("prim%#x", v.Prim)
	}
	d := b.Resolve(v)
	if d == nil {
		return "?"
	}
	var parts []string
	switch d.Kind {
	case TRecord:
		for i, l := range d.Labels {
			parts = append(parts, l+":"+shape(b, d.Fields[i], depth+1))
		}
		return "record{" + strings.Join(parts, ",") + "}"
	case TEnum:
		return "enum{" + strings.Join(d.Labels, ",") + "}"
	case TVariant:
		for i, l := range d.Labels {
			if d.Fields[i].Prim == 0 && d.Fields[i].Index == NoPayload {
				parts = append(parts, l)
				continue
			}
			parts = append(parts, l+":"+shape(b, d.Fields[i], depth+1))
		}
		return "variant{" + strings.Join(parts, ",") + "}"
	case TResult:
		ok, e := "_", "_"
		if d.HasElem {
			ok = shape(b, d.Elem, depth+1)
		}
		if d.HasErr {
			e = shape(b, d.Err, depth+1)
		}
		return "result<" + ok + "," + e + ">"
	case TOption:
		return "option<" + shape(b, d.Elem, depth+1) + ">"
	case TList:
		return "list<" + shape(b, d.Elem, depth+1) + ">"
	case TTuple:
		for _, f := range d.Fields {
			parts = append(parts, shape(b, f, depth+1))
		}
		return "tuple<" + strings.Join(parts, ",") + ">"
	}
	if d.HasElem && d.Elem.Prim != 0 && len(d.Fields) == 0 && len(d.Labels) == 0 {
		return shape(b, d.Elem, depth+1)
	}
	return fmt.Sprintf("type%#x", d.Kind)
}

// unversioned strips "@version" from an interface name.
func unversioned(name string) string {
	if i := strings.LastIndexByte(name, '@'); i >= 0 {
		return name[:i]
	}
	return name
}
