package component

import (
	"fmt"
	"strings"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/binary"
)

// plan is what validation learnt about a component of murmur's shape: which
// core module is the main one and which of its exports the world's
// function lifts.
type plan struct {
	main       int
	adapter    int    // the preview-1 adapter module, or -1
	run        string // core export lifted as the world's run
	postReturn string // "" if none
	// hook is the hook world's lifecycle functions the main module
	// exports, by name (run is "" then).
	hook map[string]hookFn
}

// validate checks b against murmur's shape and world w: only lift, lower
// and resource.drop with UTF-8 and no async; imports limited to WASI 0.2.x
// and the world's murmur interfaces; one main module whose export is the
// world's function with the right type, plus wit-component's shim (no
// imports) and fixup (imports only from ""), and type-only nested
// components.
func validate(b *binary.Component, w World) (*plan, error) {
	if err := checkCommon(b, w); err != nil {
		return nil, err
	}
	if w == WorldHook {
		return validateHook(b)
	}
	lift, err := findLift(b, w)
	if err != nil {
		return nil, err
	}
	cf := b.CoreFuncs[lift.CoreFunc]
	if cf.Canon >= 0 {
		return nil, unsupported("the %s export lifts a host function", w.export())
	}
	inst, ok := index(b.CoreInstances, cf.Alias.Instance)
	if !ok || inst.Module < 0 {
		return nil, unsupported("the %s export does not come from an instantiated core module", w.export())
	}
	p := &plan{main: inst.Module, run: cf.Alias.Name}
	if p.run != w.export()+"#run" {
		return nil, unsupported("the world's run is core export %q, want %q", p.run, w.export()+"#run")
	}
	if lift.PostReturn >= 0 {
		pr, ok := index(b.CoreFuncs, uint32(lift.PostReturn))
		if !ok || pr.Canon >= 0 || pr.Alias.Instance != cf.Alias.Instance {
			return nil, unsupported("post-return is not a function of the main module")
		}
		p.postReturn = pr.Alias.Name
	}
	if err := checkModules(b, p); err != nil {
		return nil, err
	}
	if err := checkOptions(b, lift, cf.Alias.Instance, adapterInstance(b, p.adapter)); err != nil {
		return nil, err
	}
	if err := checkRunType(b, lift.Type, w); err != nil {
		return nil, err
	}
	return p, nil
}

// checkCommon checks what every world shares: no start function or other
// sorts, only lift, lower and resource.drop with UTF-8 and no async,
// imports limited to WASI 0.2.x and the world's murmur interfaces, and
// type-only nested components.
func checkCommon(b *binary.Component, w World) error {
	if b.HasStart {
		return unsupported("a component start function")
	}
	if len(b.OtherSorts) > 0 {
		return unsupported("%s", b.OtherSorts[0])
	}
	for _, c := range b.Canons {
		switch {
		case c.Op != binary.CanonLift && c.Op != binary.CanonLower && c.Op != binary.CanonResourceDrop:
			return unsupported("canon opcode %#x (only lift, lower and resource.drop)", c.Op)
		case c.Async || c.Callback:
			return unsupported("async canonical options")
		case c.Encoding != 0:
			return unsupported("string encoding other than UTF-8")
		}
	}
	for _, im := range b.Imports {
		if im.Desc.Sort != binary.SortInstance {
			return unsupported("import %s is not an interface instance", im.Name)
		}
		if why, ok := w.allowedImport(im.Name); !ok {
			return unsupported("%s", why)
		}
	}
	for _, c := range b.Components {
		if c == nil || len(c.Modules) > 0 || len(c.Canons) > 0 || len(c.Components) > 0 {
			return unsupported("a nested component with code (only wit-component's type-export wrappers are supported)")
		}
	}
	return nil
}

// noFuncError is an export without the function asked for.
type noFuncError struct{ err error }

func (e *noFuncError) Error() string { return e.err.Error() }
func (e *noFuncError) Unwrap() error { return e.err }

func index[T any](s []T, i uint32) (T, bool) {
	if int64(i) >= int64(len(s)) {
		var zero T
		return zero, false
	}
	return s[i], true
}

// findLift follows the world's export to the canon lift of its run.
func findLift(b *binary.Component, w World) (binary.Canon, error) {
	return findLiftFunc(b, w, "run")
}

// findLiftFunc follows the world's export to the canon lift of its
// function fn. A function the export does not have is errNoFunc.
func findLiftFunc(b *binary.Component, w World, fn string) (binary.Canon, error) {
	var exp *binary.Export
	for i := range b.Exports {
		if b.Exports[i].Name == w.export() {
			exp = &b.Exports[i]
		}
	}
	if exp == nil {
		var names []string
		for _, e := range b.Exports {
			names = append(names, e.Name)
		}
		for _, n := range names {
			if base, _, _ := strings.Cut(n, "@"); base == unversioned(w.export()) {
				return binary.Canon{}, unsupported("component exports %s: only %s is accepted (murmur's %s world)", n, w.export(), w.name())
			}
		}
		return binary.Canon{}, unsupported("component does not export %s (murmur's %s world); it exports [%s]", w.export(), w.name(), strings.Join(names, ", "))
	}
	if exp.Sort != binary.SortInstance {
		return binary.Canon{}, unsupported("export %s is not an instance", w.export())
	}
	in, ok := index(b.Instances, exp.Index)
	if !ok {
		return binary.Canon{}, binary.Malformed(0, "export %s names instance %d which does not exist", w.export(), exp.Index)
	}
	var args []binary.Arg
	switch {
	case in.Component >= 0:
		args = in.Args
	case in.Component == -1 && in.Import == "":
		args = in.Exports
	default:
		return binary.Canon{}, unsupported("export %s is not built from a lifted function", w.export())
	}
	var fi int64 = -1
	for _, a := range args {
		if a.Sort == binary.SortFunc && (a.Name == fn || a.Name == "import-func-"+fn) {
			fi = int64(a.Index)
		}
	}
	if fi < 0 {
		return binary.Canon{}, &noFuncError{unsupported("export %s has no %s function", w.export(), fn)}
	}
	f, ok := index(b.Funcs, uint32(fi))
	if !ok || f.Canon < 0 {
		return binary.Canon{}, unsupported("export %s's %s is not a canon lift", w.export(), fn)
	}
	lift := b.Canons[f.Canon]
	if _, ok := index(b.CoreFuncs, lift.CoreFunc); !ok {
		return binary.Canon{}, binary.Malformed(0, "canon lift names core func %d which does not exist", lift.CoreFunc)
	}
	return lift, nil
}

// checkOptions checks that every canon's memory and realloc are the main
// module's "memory" and "cabi_realloc", or the adapter's
// "cabi_import_realloc" (adapterInst < 0: no adapter).
func checkOptions(b *binary.Component, lift binary.Canon, mainInst uint32, adapterInst int64) error {
	for _, c := range append([]binary.Canon{lift}, b.Canons...) {
		if c.Memory >= 0 {
			m, ok := index(b.CoreMemories, uint32(c.Memory))
			if !ok || m.Instance != mainInst || m.Name != "memory" {
				return unsupported("a canonical option's memory is not the main module's memory")
			}
		}
		if c.Realloc >= 0 {
			f, ok := index(b.CoreFuncs, uint32(c.Realloc))
			fromMain := f.Alias.Instance == mainInst && f.Alias.Name == "cabi_realloc"
			fromAdapter := int64(f.Alias.Instance) == adapterInst && f.Alias.Name == "cabi_import_realloc"
			if !ok || f.Canon >= 0 || !fromMain && !fromAdapter {
				return unsupported("a canonical option's realloc is not the main module's cabi_realloc")
			}
		}
	}
	return nil
}

// checkModules checks that every module but main is wit-component's shim
// or fixup, or the preview-1 adapter a main module importing
// wasi_snapshot_preview1 needs, and that main is instantiated exactly once.
// It records the adapter in p.
func checkModules(b *binary.Component, p *plan) error {
	main := p.main
	p.adapter = -1
	if main >= len(b.Modules) || b.Modules[main] == nil {
		return unsupported("the main core module is imported, not embedded")
	}
	if n := instantiations(b, main); n != 1 {
		return unsupported("the main core module is instantiated %d times", n)
	}
	mainP1 := false
	for i, m := range b.Modules {
		mods, err := binary.CoreImportModules(m)
		if err != nil {
			return err
		}
		switch {
		case i == main:
			for _, name := range mods {
				mainP1 = mainP1 || name == adapterName
			}
		case isAdapter(mods):
			if p.adapter >= 0 {
				return unsupported("more than one preview-1 adapter module")
			}
			if n := instantiations(b, i); n != 1 {
				return unsupported("the preview-1 adapter is instantiated %d times", n)
			}
			p.adapter = i
		default:
			for _, name := range mods {
				// A fixup imports "main" for the main module's
				// _initialize when it exports one (wit-component 0.2xx
				// runs it from the fixup's start); this host calls
				// _initialize itself, and the fixup never runs.
				if name != "" && name != "actual" && name != "shim" && name != "main" {
					return unsupported("core module %d imports %q: only wit-component's shim, fixup and preview-1 adapter may accompany the main module", i, name)
				}
			}
		}
	}
	if mainP1 && p.adapter < 0 {
		return unsupported("the main module imports %s but the component has no adapter for it", adapterName)
	}
	if !mainP1 && p.adapter >= 0 {
		return unsupported("a preview-1 adapter that the main module does not use")
	}
	if max := 3 + btoi(p.adapter >= 0); len(b.Modules) > max {
		return unsupported("%d core modules (at most a main module, a shim, a fixup and a preview-1 adapter)", len(b.Modules))
	}
	return nil
}

func instantiations(b *binary.Component, module int) int {
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

// checkRunType checks the lifted function's type against the world.
func checkRunType(b *binary.Component, ti uint32, w World) error {
	ft := resolve(b, binary.ValType{Index: ti})
	if ft == nil || ft.Kind != binary.TFunc {
		return unsupported("the run export's type is not a function")
	}
	if w.export() == WorldCapsule.export() {
		if len(ft.Fields) != 0 || ft.HasElem {
			return unsupported("murmur:capsule/run's run must be func()")
		}
		return nil
	}
	if len(ft.Fields) != 1 || !ft.HasElem {
		return unsupported("murmur:tool/run's run must be func(input: tool-input) -> tool-result")
	}
	if got := shape(b, ft.Fields[0], 0); got != toolInputShape {
		return unsupported("tool-input has shape %s, want %s", got, toolInputShape)
	}
	if got := shape(b, ft.Elem, 0); got != toolResultShape {
		return unsupported("tool-result has shape %s, want %s", got, toolResultShape)
	}
	return nil
}

const (
	toolInputShape  = "record{data:option<string>,log-path:option<string>}"
	toolResultShape = "record{status:enum{passed,failed,error},summary:option<string>,data:option<string>,data-path:option<string>,truncated:bool,metadata:list<tuple<string,string>>}"
)

// resolve follows a type index through exports to its definition.
func resolve(b *binary.Component, v binary.ValType) *binary.TypeDef {
	for i := 0; i < 8 && v.Prim == 0; i++ {
		t, ok := index(b.Types, v.Index)
		if !ok {
			return nil
		}
		if t.Def != nil {
			return t.Def
		}
		if t.Export > 0 || (t.AliasInstance == -1 && t.Export == 0 && t.Import == "" && !t.Outer && t.AliasName == "") {
			v = binary.ValType{Index: uint32(t.Export)}
			continue
		}
		return nil
	}
	return nil
}

// shape renders a type structurally, so two definitions of tool-result in
// different index spaces compare equal.
func shape(b *binary.Component, v binary.ValType, depth int) string {
	if depth > 8 {
		return "?"
	}
	if v.Prim != 0 {
		switch v.Prim {
		case binary.PBool:
			return "bool"
		case binary.PString:
			return "string"
		case binary.PS32:
			return "s32"
		case binary.PU32:
			return "u32"
		case binary.PU64:
			return "u64"
		case binary.PF64:
			return "f64"
		}
		return fmt.Sprintf("prim%#x", v.Prim)
	}
	d := resolve(b, v)
	if d == nil {
		return "?"
	}
	var parts []string
	switch d.Kind {
	case binary.TRecord:
		for i, l := range d.Labels {
			parts = append(parts, l+":"+shape(b, d.Fields[i], depth+1))
		}
		return "record{" + strings.Join(parts, ",") + "}"
	case binary.TEnum:
		return "enum{" + strings.Join(d.Labels, ",") + "}"
	case binary.TVariant:
		for i, l := range d.Labels {
			if d.Fields[i].Prim == 0 && d.Fields[i].Index == binary.NoPayload {
				parts = append(parts, l)
				continue
			}
			parts = append(parts, l+":"+shape(b, d.Fields[i], depth+1))
		}
		return "variant{" + strings.Join(parts, ",") + "}"
	case binary.TResult:
		ok, e := "_", "_"
		if d.HasElem {
			ok = shape(b, d.Elem, depth+1)
		}
		if d.HasErr {
			e = shape(b, d.Err, depth+1)
		}
		return "result<" + ok + "," + e + ">"
	case binary.TOption:
		return "option<" + shape(b, d.Elem, depth+1) + ">"
	case binary.TList:
		return "list<" + shape(b, d.Elem, depth+1) + ">"
	case binary.TTuple:
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
