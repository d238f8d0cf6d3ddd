package component

import (
	"context"
	"errors"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// Value is one field of a lifecycle event record; make it with Str, U32,
// U64, S32, F64, OptStr, Strs or Msgs.
type Value struct {
	kind fieldKind
	s    string
	n    uint64
	f    float64
	opt  *string
	strs []string
	msgs []Message
}

// Str is a string field.
func Str(v string) Value { return Value{kind: kString, s: v} }

// U32 is a u32 field.
func U32(v uint32) Value { return Value{kind: kU32, n: uint64(v)} }

// U64 is a u64 field.
func U64(v uint64) Value { return Value{kind: kU64, n: v} }

// S32 is an s32 field.
func S32(v int32) Value { return Value{kind: kS32, n: uint64(uint32(v))} }

// F64 is an f64 field.
func F64(v float64) Value { return Value{kind: kF64, f: v} }

// OptStr is an option<string> field (nil is none).
func OptStr(v *string) Value { return Value{kind: kOptString, opt: v} }

// Strs is a list<string> field.
func Strs(v []string) Value { return Value{kind: kStrings, strs: v} }

// Msgs is a list<message> field.
func Msgs(v []Message) Value { return Value{kind: kMessages, msgs: v} }

// Message is murmur:hook/lifecycle's message record.
type Message struct {
	Role, Content string
}

// ToolManifest is murmur:hook/lifecycle's tool-manifest record.
type ToolManifest struct {
	BinaryName, Content string
}

// HookOutput is a lifted hook-output: Arm is "none", "replace-context"
// (Messages), "write-manifests" (Manifests), "artifact" or "reopen-task"
// (Text).
type HookOutput struct {
	Arm       string
	Messages  []Message
	Manifests []ToolManifest
	Text      string
}

// hookArms are hook-output's cases in declaration order.
func hookArms() [5]string {
	return [5]string{"none", "replace-context", "write-manifests", "artifact", "reopen-task"}
}

// HookError is a lifecycle function's err(string) answer: the hook's own
// error, not a failure of the call.
type HookError struct{ Msg string }

func (e *HookError) Error() string { return e.Msg }

// HookInstance is one instance of a hook component, kept across the
// events of one case as murmur keeps a blocking hook's instance for a
// launch: the guest's state persists from call to call. Calls are
// serialised. After a call fails (trap, deadline, memory limit, invalid
// result) the instance is not entered again, as wasmtime does not re-enter
// a component instance that trapped: every later call fails.
type HookInstance struct {
	c   *Component
	env *Env
	// sem holds one token while a call or Close uses the instance: a
	// channel, not a mutex, so a call waiting for it gives up when its
	// context ends (a hook spinning to its deadline would hold it).
	sem chan struct{}
	in  *instance
	// broken is why the instance may not be entered, nil while usable.
	broken error
}

// NewHookInstance instantiates a hook component with env (its preopen,
// environment, memory limit; env.Deadline bounds instantiation and each
// call; env.Inference serves run-inference).
func (c *Component) NewHookInstance(ctx context.Context, env Env) (*HookInstance, error) {
	if c.world != WorldHook {
		return nil, errcode.New(errcode.Internal, "NewHookInstance on a %s component", c.world.name())
	}
	h := &HookInstance{c: c, env: &env, sem: make(chan struct{}, 1)}
	s := newState(h.env)
	callCtx, cancel := withDeadline(ctx, env.Deadline)
	defer cancel()
	callCtx = context.WithValue(callCtx, stateKey{}, s)
	in, err := c.instantiate(callCtx, s)
	if err != nil {
		in.close(ctx)
		return nil, failure(ctx, callCtx, h.env, in.denied(), err)
	}
	h.in = in
	return h, nil
}

// Has reports whether the hook exports lifecycle function event (the
// optional on-task-start, on-task-end and on-stage may be missing).
func (h *HookInstance) Has(event string) bool {
	_, ok := h.c.plan.hook[event]
	return ok
}

// Call calls lifecycle function event with the event record fields, in
// the record's WIT order and kinds (murmur-session.md §4.2; a wrong count
// or kind is an internal error, E-EVL-099). A function the hook does not export
// answers none. The hook's err(string) is a *HookError; a guest failure is
// E-RUN-001 wrapping sandbox.ErrTrap, ErrDeadline or ErrMemory, and leaves
// the instance unusable.
func (h *HookInstance) Call(ctx context.Context, event string, fields []Value) (HookOutput, error) {
	schema, _, ok := hookSchema(event)
	if !ok {
		return HookOutput{}, errcode.New(errcode.Internal, "%s is not a lifecycle function", event)
	}
	if len(fields) != len(schema) {
		return HookOutput{}, errcode.New(errcode.Internal, "%s takes %d fields, got %d", event, len(schema), len(fields))
	}
	for i, f := range schema {
		if fields[i].kind != f.Kind {
			return HookOutput{}, errcode.New(errcode.Internal, "%s field %s is %s, got %s", event, f.Name, wit(f.Kind), wit(fields[i].kind))
		}
	}
	fn, ok := h.c.plan.hook[event]
	if !ok {
		return HookOutput{Arm: "none"}, nil
	}
	if err := h.acquire(ctx); err != nil {
		return HookOutput{}, err
	}
	defer h.release()
	if h.in == nil {
		return HookOutput{}, errcode.New(errcode.Internal, "hook instance %s is closed", h.env.Name)
	}
	if h.broken != nil {
		return HookOutput{}, errcode.New(errcode.RunCapsule, "hook '%s' cannot be entered again: an earlier call failed (%v)", h.env.Name, h.broken)
	}
	s := h.in.s
	// The event is lowered with the main module's allocator, whichever
	// module made the instance's last host call.
	s.Realloc = s.MainRealloc
	s.ResetOutput()
	callCtx, cancel := withDeadline(ctx, h.env.Deadline)
	defer cancel()
	callCtx = context.WithValue(callCtx, stateKey{}, s)
	var out HookOutput
	var hookErr *HookError
	err := abi.Guard(func() error {
		m := h.in.m
		params := s.lowerRecord(callCtx, fields)
		res, err := m.ExportedFunction(fn.core).Call(callCtx, params...)
		if err != nil {
			return err
		}
		out, hookErr, err = liftHookResult(s.Mem, uint32(res[0]))
		var le *abi.LiftError
		if errors.As(err, &le) {
			le.What = "result<hook-output, string>"
		}
		if err != nil {
			return err
		}
		if fn.postReturn != "" {
			if _, err := m.ExportedFunction(fn.postReturn).Call(callCtx, res[0]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		err = failure(ctx, callCtx, h.env, h.in.denied(), err)
		h.broken = err
		return HookOutput{}, err
	}
	if hookErr != nil {
		return HookOutput{}, hookErr
	}
	return out, nil
}

// acquire takes the instance for a call, or returns the caller's context's
// end, E-EVL-021 (or E-EVL-020 for a deadline) as a tool call's
// interruption is, when it ends first. A context already done never enters
// the instance (entering would leave it unusable).
func (h *HookInstance) acquire(ctx context.Context) error {
	if ctx.Err() == nil {
		select {
		case h.sem <- struct{}{}:
			return nil
		case <-ctx.Done():
		}
	}
	code := errcode.Cancelled
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		code = errcode.Timeout
	}
	return errcode.Wrap(code, ctx.Err(), "hook '%s' interrupted", h.env.Name)
}

func (h *HookInstance) release() { <-h.sem }

// Close releases the instance. It is safe to call more than once.
func (h *HookInstance) Close(ctx context.Context) error {
	// Close waits for a running call whatever ctx says: the instance must
	// be released, and a call ends by its deadline.
	h.sem <- struct{}{}
	defer h.release()
	if h.in != nil {
		h.in.close(ctx)
		h.in = nil
	}
	return nil
}

// lowered is v as the canonical ABI layer lowers it.
func (v Value) lowered() abi.Value {
	lv := abi.Value{Kind: v.kind, S: v.s, N: v.n, F: v.f, Opt: v.opt, Strs: v.strs}
	if v.kind == kMessages {
		lv.Pairs = make([][2]string, len(v.msgs))
		for i, m := range v.msgs {
			lv.Pairs[i] = [2]string{m.Role, m.Content}
		}
	}
	return lv
}

// lowerRecord lowers an event record (its fields checked against the
// schema) into the lifecycle function's core parameters.
func (s *state) lowerRecord(ctx context.Context, fields []Value) []uint64 {
	var buf [12]abi.Value // every lifecycle record fits: no allocation
	vals := buf[:0]
	for _, v := range fields {
		vals = append(vals, v.lowered())
	}
	return s.LowerParams(ctx, vals)
}

// hookResultSize is result<hook-output, string>'s size (align 4): the
// result's tag at 0; ok: hook-output's tag at 4 and its payload (a list or
// a string: pointer, length) at 8; err: the string at 4.
const hookResultSize = 16

// liftHookResult reads result<hook-output, string> at ptr, checking
// alignment, bounds, tags and UTF-8. err(string) is returned as a
// *HookError beside a nil error.
func liftHookResult(mem abi.MemReader, ptr uint32) (HookOutput, *HookError, error) {
	var out HookOutput
	if ptr%4 != 0 {
		return out, nil, abi.LiftFail("result pointer %#x is not 4-byte aligned", ptr)
	}
	b, ok := mem.Read(ptr, hookResultSize)
	if !ok {
		return out, nil, abi.LiftFail("result pointer %#x out of bounds", ptr)
	}
	b = append([]byte(nil), b...)
	switch b[0] {
	case 0:
	case 1:
		msg, err := abi.LiftString(mem, b[4:])
		if err != nil {
			return out, nil, err
		}
		return out, &HookError{Msg: msg}, nil
	default:
		return out, nil, abi.LiftFail("result tag %d is not ok or err", b[0])
	}
	arms := hookArms()
	if int(b[4]) >= len(arms) {
		return out, nil, abi.LiftFail("hook-output tag %d is not none, replace-context, write-manifests, artifact or reopen-task", b[4])
	}
	out.Arm = arms[b[4]]
	var err error
	switch b[4] {
	case 1, 2:
		pairs, err := abi.LiftPairs(mem, b[8:])
		if err != nil {
			return HookOutput{}, nil, err
		}
		for _, kv := range pairs {
			if b[4] == 1 {
				out.Messages = append(out.Messages, Message{Role: kv[0], Content: kv[1]})
			} else {
				out.Manifests = append(out.Manifests, ToolManifest{BinaryName: kv[0], Content: kv[1]})
			}
		}
		if b[4] == 1 && out.Messages == nil {
			out.Messages = []Message{}
		}
	case 3, 4:
		out.Text, err = abi.LiftString(mem, b[8:])
	}
	return out, nil, err
}
