package component

import (
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
	if err := b.CheckCommon(w.allowedImport); err != nil {
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
	inst, ok := binary.Index(b.CoreInstances, cf.Alias.Instance)
	if !ok || inst.Module < 0 {
		return nil, unsupported("the %s export does not come from an instantiated core module", w.export())
	}
	p := &plan{main: inst.Module, run: cf.Alias.Name}
	if p.run != w.export()+"#run" {
		return nil, unsupported("the world's run is core export %q, want %q", p.run, w.export()+"#run")
	}
	if lift.PostReturn >= 0 {
		pr, ok := binary.Index(b.CoreFuncs, uint32(lift.PostReturn))
		if !ok || pr.Canon >= 0 || pr.Alias.Instance != cf.Alias.Instance {
			return nil, unsupported("post-return is not a function of the main module")
		}
		p.postReturn = pr.Alias.Name
	}
	if p.adapter, err = b.CheckModules(p.main); err != nil {
		return nil, err
	}
	if err := b.CheckOptions(lift, cf.Alias.Instance, b.AdapterInstance(p.adapter)); err != nil {
		return nil, err
	}
	if err := checkRunType(b, lift.Type, w); err != nil {
		return nil, err
	}
	return p, nil
}

// findLift follows the world's export to the canon lift of its run.
func findLift(b *binary.Component, w World) (binary.Canon, error) {
	return b.FindLift(w.export(), w.name(), "run")
}

// checkRunType checks the lifted function's type against the world.
func checkRunType(b *binary.Component, ti uint32, w World) error {
	ft := b.Resolve(binary.ValType{Index: ti})
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
	if got := b.Shape(ft.Fields[0]); got != toolInputShape {
		return unsupported("tool-input has shape %s, want %s", got, toolInputShape)
	}
	if got := b.Shape(ft.Elem); got != toolResultShape {
		return unsupported("tool-result has shape %s, want %s", got, toolResultShape)
	}
	return nil
}

const (
	toolInputShape  = "record{data:option<string>,log-path:option<string>}"
	toolResultShape = "record{status:enum{passed,failed,error},summary:option<string>,data:option<string>,data-path:option<string>,truncated:bool,metadata:list<tuple<string,string>>}"
)
