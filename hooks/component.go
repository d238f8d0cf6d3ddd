package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// encoded is one event as the hooks read it: the JSON envelope for
// preview-1 modules, the lifecycle record's fields for components, each
// made once, when a hook of that kind first needs it.
type encoded struct {
	event   string
	payload any
	stdin   []byte
	fields  []component.Value
}

// prepare makes the form h reads. It is called on the case's goroutine
// before an async worker may read the event.
func (e *encoded) prepare(h *Hook) error {
	if h.Component != nil {
		if e.fields == nil {
			f, err := recordOf(e.payload)
			if err != nil {
				return fmt.Errorf("encode %s event: %w", e.event, err)
			}
			e.fields = f
		}
		return nil
	}
	if e.stdin == nil {
		b, err := json.Marshal(envelope{ABI: ABI, Event: e.event, Payload: e.payload})
		if err != nil {
			return fmt.Errorf("encode %s event: %w", e.event, err)
		}
		e.stdin = b
	}
	return nil
}

// recordOf maps an event payload to its lifecycle record's fields in WIT
// order (murmur-session.md §4.2). Counts are clamped to the WIT type
// (negative to 0).
func recordOf(payload any) ([]component.Value, error) {
	s, u64, opt := component.Str, u64Of, component.OptStr
	switch p := payload.(type) {
	case StageEvent:
		return []component.Value{component.Strs(slices.Clone(p.ShellAllow))}, nil
	case SessionStart:
		return []component.Value{s(p.CapsuleName), s(p.CapsuleVersion), s(p.SessionID), s(p.Model), component.Strs(slices.Clone(p.Capabilities))}, nil
	case TaskStart:
		return []component.Value{s(p.TaskID), s(p.ContextID), s(p.Source), u64(p.InputBytes)}, nil
	case Inference:
		return []component.Value{u32Of(int64(p.Turn)), u64(p.InputTokens), u64(p.OutputTokens), s(p.Decision),
			opt(p.ToolName), opt(p.Prompt), opt(p.Output), opt(p.Tools)}, nil
	case ToolCall:
		return []component.Value{u32Of(int64(p.Turn)), s(p.ToolName), u64(p.InputBytes), u64(p.OutputBytes), u64(p.DurationMS), s(p.Status)}, nil
	case Shell:
		return []component.Value{u32Of(int64(p.Turn)), s(p.Binary), s(p.Command), component.S32(p.ExitCode), s(p.Stdout), s(p.Stderr),
			u64(p.StdoutBytes), u64(p.StderrBytes), u64(p.DurationMS)}, nil
	case Compaction:
		return []component.Value{component.Msgs(toComponentMessages(p.Messages)), u64(p.SessionTokens), component.F64(p.Threshold),
			opt(p.Model), opt(p.SystemPrompt)}, nil
	case TaskEnd:
		return []component.Value{s(p.TaskID), s(p.ExitStatus)}, nil
	case SessionEnd:
		return []component.Value{u32Of(p.TotalTurns), u64(p.TotalInputTokens), u64(p.TotalOutputTokens), u32Of(p.TotalToolCalls),
			u32Of(p.TotalShellCalls), u64(p.DurationMS), s(p.ExitStatus)}, nil
	}
	return nil, fmt.Errorf("no lifecycle record for %T", payload)
}

func u64Of(v int64) component.Value { return component.U64(uint64(max(v, 0))) }

func u32Of(v int64) component.Value { return component.U32(uint32(min(max(v, 0), math.MaxUint32))) }

func toComponentMessages(ms []Message) []component.Message {
	out := make([]component.Message, len(ms))
	for i, m := range ms {
		out[i] = component.Message{Role: m.Role, Content: m.Content}
	}
	return out
}

// hookInstance is a component hook's instance for one case, with the
// folder it sees as "." (nil without filesystem.scope).
type hookInstance struct {
	inst *component.HookInstance
	root *os.Root
	err  error // instantiation failed: every call of the case reports it
}

func (hi *hookInstance) close(ctx context.Context) {
	if hi.inst != nil {
		_ = hi.inst.Close(ctx)
	}
	if hi.root != nil {
		_ = hi.root.Close()
	}
}

// callComponent calls a component hook: on the case's instance of the
// hook, made at on-session-start (murmur keeps a hook's instance for a
// launch, so the guest's state persists), or for on-stage on a throwaway
// instance, as murmur's staging does.
func (d *Dispatcher) callComponent(ctx context.Context, h *Hook, ev *encoded, env []string) (Output, error) {
	var hi *hookInstance
	if ev.event == OnStage {
		hi = d.newInstance(ctx, h, env)
		defer hi.close(ctx)
	} else {
		hi = d.instance(ctx, h, env)
	}
	if hi.err != nil {
		return Output{}, hi.err
	}
	res, err := hi.inst.Call(ctx, ev.event, ev.fields)
	var he *component.HookError
	if errors.As(err, &he) {
		return Output{}, &HookError{Msg: he.Msg}
	}
	if err != nil {
		return Output{}, err
	}
	out := Output{Arm: res.Arm}
	switch res.Arm {
	case ArmReopenTask:
		out.Reason = res.Text
	case ArmArtifact:
		out.Artifact = json.RawMessage(res.Text)
	case ArmReplaceContext:
		out.Messages = make([]Message, len(res.Messages))
		for i, m := range res.Messages {
			out.Messages[i] = Message{Role: m.Role, Content: m.Content}
		}
	case ArmWriteManifests:
		for _, m := range res.Manifests {
			out.Manifests = append(out.Manifests, ToolManifest{BinaryName: m.BinaryName, Content: m.Content})
		}
	}
	return out, nil
}

// instance returns the case's instance of h, making it on first use
// (SessionStart makes them all; a case that starts elsewhere makes them as
// events come).
func (d *Dispatcher) instance(ctx context.Context, h *Hook, env []string) *hookInstance {
	d.mu.Lock()
	hi, ok := d.instances[h]
	d.mu.Unlock()
	if ok {
		return hi
	}
	hi = d.newInstance(ctx, h, env)
	d.mu.Lock()
	if d.instances == nil {
		d.instances = map[*Hook]*hookInstance{}
	}
	d.instances[h] = hi
	d.mu.Unlock()
	return hi
}

// newInstance instantiates h with the case's environment, its scope
// folder as "." (created if missing), the run's memory limit and output
// caps, the hook deadline and run-inference through the case's model.
func (d *Dispatcher) newInstance(ctx context.Context, h *Hook, env []string) *hookInstance {
	hi := &hookInstance{}
	if h.Scope != "" {
		hi.root, hi.err = openScope(d.dir, h.Scope)
		if hi.err != nil {
			return hi
		}
	}
	cenv := component.Env{Name: h.Name, Root: hi.root, Env: env, Args: []string{h.Name}, Deadline: d.set.opts.Deadline,
		Inference: componentInference{d: d, h: h}, Network: h.Network, HTTP: d.http}
	if d.onDenied != nil {
		cenv.OnHTTPDenied = func(t capsule.Target) { d.onDenied(h.Name, t) }
	}
	if d.set.engine != nil {
		cenv.MemoryLimitBytes, cenv.MaxOutputBytes = d.set.engine.MemoryLimitBytes(), d.set.engine.MaxOutputBytes()
	}
	hi.inst, hi.err = h.Component.NewHookInstance(ctx, cenv)
	return hi
}

// instantiateAll makes the case's instance of every component hook, bound
// or not, blocking or async, as murmur's hook runtime does when a launch
// begins; a hook that fails to instantiate fails the session, with
// murmur's words.
func (d *Dispatcher) instantiateAll(ctx context.Context) error {
	if d == nil {
		return nil
	}
	for _, h := range d.set.hooks {
		if h.Component == nil {
			continue
		}
		if hi := d.instance(ctx, h, d.env); hi.err != nil {
			return errcode.Wrap(errcode.RunCapsule, hi.err, "failed to instantiate hook %s@%s", h.Name, h.Version)
		}
	}
	return nil
}

// closeInstances releases the case's hook instances (after on-session-end
// and the drain).
func (d *Dispatcher) closeInstances(ctx context.Context) {
	d.mu.Lock()
	all := d.instances
	d.instances = nil
	d.mu.Unlock()
	for _, h := range d.set.hooks {
		if hi, ok := all[h]; ok {
			hi.close(ctx)
		}
	}
}

// openScope opens the hook's filesystem.scope folder of the session,
// creating it, without following a link out of the session.
func openScope(sessionDir, scope string) (*os.Root, error) {
	if err := os.MkdirAll(sessionDir, 0o755); err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "open session folder")
	}
	root, err := os.OpenRoot(sessionDir)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "open session folder")
	}
	defer func() { _ = root.Close() }()
	rel := filepath.Clean(filepath.FromSlash(scope))
	if rel == "." {
		return root.OpenRoot(".")
	}
	if err := root.MkdirAll(rel, 0o755); err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "create filesystem.scope folder %s", scope)
	}
	sub, err := root.OpenRoot(rel)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "open filesystem.scope folder %s", scope)
	}
	return sub, nil
}

// componentInference serves a component hook's run-inference with the
// case's model, as hostCalls does for preview-1 hooks.
type componentInference struct {
	d *Dispatcher
	h *Hook
}

func (ci componentInference) RunInference(ctx context.Context, req component.InferenceRequest) (component.InferenceResponse, error) {
	in := InferenceRequest{Messages: make([]Message, len(req.Messages)), SystemPrompt: req.SystemPrompt, Model: req.Model}
	for i, m := range req.Messages {
		in.Messages[i] = Message{Role: m.Role, Content: m.Content}
	}
	resp, err := ci.d.runRequest(ctx, ci.h, in)
	if err != nil {
		return component.InferenceResponse{}, err
	}
	return component.InferenceResponse{Text: resp.Text, ModelUsed: resp.ModelUsed,
		InputTokens: uint64(max(resp.InputTokens, 0)), OutputTokens: uint64(max(resp.OutputTokens, 0))}, nil
}
