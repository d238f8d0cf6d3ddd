package component

import (
	"errors"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/binary"
)

// fieldKind is the WIT type of one field of a lifecycle event record: the
// types murmur's lifecycle records use (murmur-session.md §4.2), as the
// canonical ABI layer lowers them.
type fieldKind = abi.Kind

// Field kinds.
const (
	kString    = abi.String    // string
	kU32       = abi.U32       // u32
	kU64       = abi.U64       // u64
	kS32       = abi.S32       // s32
	kF64       = abi.F64       // f64
	kOptString = abi.OptString // option<string>
	kStrings   = abi.Strings   // list<string>
	kMessages  = abi.Pairs     // list<message{role, content}>
)

// wit is the kind k as shape renders it.
func wit(k fieldKind) string {
	switch k {
	case kString:
		return "string"
	case kU32:
		return "u32"
	case kU64:
		return "u64"
	case kS32:
		return "s32"
	case kF64:
		return "f64"
	case kOptString:
		return "option<string>"
	case kStrings:
		return "list<string>"
	case kMessages:
		return "list<" + messageShape + ">"
	}
	return "?"
}

// hookField is one field of a lifecycle event record.
type hookField struct {
	Name string
	Kind fieldKind
}

// Lifecycle function names (murmur:hook/lifecycle@0.5.0).
const (
	HookOnStage        = "on-stage"
	HookOnSessionStart = "on-session-start"
	HookOnTaskStart    = "on-task-start"
	HookOnInference    = "on-inference"
	HookOnToolCall     = "on-tool-call"
	HookOnShell        = "on-shell"
	HookOnCompaction   = "on-compaction"
	HookOnTaskEnd      = "on-task-end"
	HookOnSessionEnd   = "on-session-end"
)

// hookSchema returns the record the lifecycle function event takes, field
// by field in WIT order, and whether the function must be exported
// (on-session-start, on-inference, on-tool-call, on-shell, on-compaction
// and on-session-end are required; on-task-start, on-task-end and
// on-stage optional). ok is false for a name that is not a lifecycle
// function.
func hookSchema(event string) (fields []hookField, required, ok bool) {
	s, u32, u64, s32, f64, opt, strs, msgs := kString, kU32, kU64, kS32, kF64, kOptString, kStrings, kMessages
	f := func(name string, k fieldKind) hookField { return hookField{Name: name, Kind: k} }
	switch event {
	case HookOnStage:
		return []hookField{f("shell-allow", strs)}, false, true
	case HookOnSessionStart:
		return []hookField{f("capsule-name", s), f("capsule-version", s), f("session-id", s), f("model", s), f("capabilities", strs)}, true, true
	case HookOnTaskStart:
		return []hookField{f("task-id", s), f("context-id", s), f("source", s), f("input-bytes", u64)}, false, true
	case HookOnInference:
		return []hookField{f("turn", u32), f("input-tokens", u64), f("output-tokens", u64), f("decision", s),
			f("tool-name", opt), f("prompt", opt), f("output", opt), f("tools", opt)}, true, true
	case HookOnToolCall:
		return []hookField{f("turn", u32), f("tool-name", s), f("input-bytes", u64), f("output-bytes", u64), f("duration-ms", u64), f("status", s)}, true, true
	case HookOnShell:
		return []hookField{f("turn", u32), f("binary", s), f("command", s), f("exit-code", s32), f("stdout", s), f("stderr", s),
			f("stdout-bytes", u64), f("stderr-bytes", u64), f("duration-ms", u64)}, true, true
	case HookOnCompaction:
		return []hookField{f("messages", msgs), f("session-tokens", u64), f("threshold", f64), f("model", opt), f("system-prompt", opt)}, true, true
	case HookOnTaskEnd:
		return []hookField{f("task-id", s), f("exit-status", s)}, false, true
	case HookOnSessionEnd:
		return []hookField{f("total-turns", u32), f("total-input-tokens", u64), f("total-output-tokens", u64),
			f("total-tool-calls", u32), f("total-shell-calls", u32), f("duration-ms", u64), f("exit-status", s)}, true, true
	}
	return nil, false, false
}

// hookFunctions are the lifecycle functions in WIT order.
func hookFunctions() []string {
	return []string{HookOnStage, HookOnSessionStart, HookOnTaskStart, HookOnInference, HookOnToolCall,
		HookOnShell, HookOnCompaction, HookOnTaskEnd, HookOnSessionEnd}
}

// hookRecordShape renders an event record as shape does.
func hookRecordShape(fields []hookField) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Name + ":" + wit(f.Kind)
	}
	return "record{" + strings.Join(parts, ",") + "}"
}

// hookFlatParams is the core signature's parameters of a lifecycle
// function: the record flattened, or one pointer past the limit.
func hookFlatParams(fields []hookField) []api.ValueType {
	kinds := make([]abi.Kind, len(fields))
	for i, f := range fields {
		kinds[i] = f.Kind
	}
	return abi.FlatParams(kinds)
}

const (
	messageShape    = "record{role:string,content:string}"
	manifestShape   = "record{binary-name:string,content:string}"
	hookResultShape = "result<variant{none,replace-context:list<" + messageShape + ">,write-manifests:list<" + manifestShape +
		">,artifact:string,reopen-task:string},string>"
)

// hookFn is one lifecycle function the main module exports.
type hookFn struct {
	core       string // core export name
	postReturn string // "" if none
}

// validateHook checks the lifecycle export: every required function
// present, each lifted from the main module's export of the same name with
// the record and result types of murmur's WIT, and all from one main
// module.
func validateHook(b *binary.Component) (*plan, error) {
	p := &plan{hook: map[string]hookFn{}}
	var mainInst uint32
	var lifts []binary.Canon
	for _, name := range hookFunctions() {
		fields, required, _ := hookSchema(name)
		lift, err := b.FindLift(WorldHook.export(), WorldHook.name(), name)
		var nf *binary.NoFuncError
		if errors.As(err, &nf) && !required {
			continue
		}
		if err != nil {
			return nil, err
		}
		cf := b.CoreFuncs[lift.CoreFunc]
		if cf.Canon >= 0 {
			return nil, unsupported("the %s export's %s lifts a host function", hookInterface, name)
		}
		inst, ok := binary.Index(b.CoreInstances, cf.Alias.Instance)
		if !ok || inst.Module < 0 {
			return nil, unsupported("the %s export's %s does not come from an instantiated core module", hookInterface, name)
		}
		if len(lifts) == 0 {
			p.main, mainInst = inst.Module, cf.Alias.Instance
		} else if cf.Alias.Instance != mainInst {
			return nil, unsupported("the lifecycle functions come from more than one core instance")
		}
		fn := hookFn{core: cf.Alias.Name}
		if want := hookInterface + "#" + name; fn.core != want {
			return nil, unsupported("the world's %s is core export %q, want %q", name, fn.core, want)
		}
		if lift.PostReturn >= 0 {
			pr, ok := binary.Index(b.CoreFuncs, uint32(lift.PostReturn))
			if !ok || pr.Canon >= 0 || pr.Alias.Instance != mainInst {
				return nil, unsupported("post-return of %s is not a function of the main module", name)
			}
			fn.postReturn = pr.Alias.Name
		}
		ft := b.Resolve(binary.ValType{Index: lift.Type})
		if ft == nil || ft.Kind != binary.TFunc || len(ft.Fields) != 1 || !ft.HasElem {
			return nil, unsupported("lifecycle %s must be func(event) -> result<hook-output, string>", name)
		}
		if got, want := b.Shape(ft.Fields[0]), hookRecordShape(fields); got != want {
			return nil, unsupported("lifecycle %s takes %s, want %s", name, got, want)
		}
		if got := b.Shape(ft.Elem); got != hookResultShape {
			return nil, unsupported("lifecycle %s returns %s, want %s", name, got, hookResultShape)
		}
		p.hook[name] = fn
		lifts = append(lifts, lift)
	}
	adapter, err := b.CheckModules(p.main)
	if err != nil {
		return nil, err
	}
	p.adapter = adapter
	for _, l := range lifts {
		if err := b.CheckOptions(l, mainInst, b.AdapterInstance(p.adapter)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkHookSigs checks the core signature of each lifecycle export: the
// record flattened (or a pointer), an i32 result pointer back.
func checkHookSigs(exp map[string]api.FunctionDefinition, p *plan) error {
	for name, fn := range p.hook {
		f := exp[fn.core]
		if f == nil {
			return unsupported("main module does not export %s", fn.core)
		}
		fields, _, _ := hookSchema(name)
		if !abi.SameSig(f.ParamTypes(), hookFlatParams(fields)) || !abi.SameSig(f.ResultTypes(), abi.Sig(i32)) {
			return unsupported("core export %s has the wrong signature", fn.core)
		}
		if fn.postReturn != "" {
			pr := exp[fn.postReturn]
			if pr == nil || !abi.SameSig(pr.ParamTypes(), abi.Sig(i32)) || len(pr.ResultTypes()) != 0 {
				return unsupported("core export %s is missing or has the wrong signature", fn.postReturn)
			}
		}
	}
	return nil
}
