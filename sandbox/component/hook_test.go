package component

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// fakeInference answers run-inference with the last message's content
// upper-cased... as given, and records the request.
type fakeInference struct{ got []InferenceRequest }

func (f *fakeInference) RunInference(ctx context.Context, req InferenceRequest) (InferenceResponse, error) {
	f.got = append(f.got, req)
	if len(req.Messages) == 0 {
		return InferenceResponse{}, errors.New("no messages")
	}
	return InferenceResponse{Text: "summary of " + req.Messages[0].Content, ModelUsed: "m-1", InputTokens: 7, OutputTokens: 3}, nil
}

// hookEvents are one valid record per lifecycle function.
func hookEvents() map[string][]Value {
	s := func(v string) *string { return &v }
	return map[string][]Value{
		HookOnStage:        {Strs([]string{"git", "ls"})},
		HookOnSessionStart: {Str("cap"), Str("1.0.0"), Str("sid"), Str("model"), Strs(nil)},
		HookOnTaskStart:    {Str("t1"), Str("c1"), Str("task_md"), U64(12)},
		HookOnInference:    {U32(1), U64(100), U64(20), Str("tool_use"), OptStr(s("editor")), OptStr(nil), OptStr(s("[]")), OptStr(nil)},
		HookOnToolCall:     {U32(1), Str("editor"), U64(10), U64(20), U64(5), Str("ok")},
		HookOnShell:        {U32(2), Str("/bin/ls"), Str("-la"), S32(-1), Str("out"), Str(""), U64(3), U64(0), U64(9)},
		HookOnCompaction:   {Msgs([]Message{{Role: "user", Content: "long story"}, {Role: "assistant", Content: "ok"}}), U64(900), F64(0.8), OptStr(nil), OptStr(nil)},
		HookOnTaskEnd:      {Str("t1"), Str("ok")},
		HookOnSessionEnd:   {U32(3), U64(300), U64(60), U32(2), U32(1), U64(1234), Str("ok")},
	}
}

func TestHookInstance(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "hook", WorldHook)
	ctx := context.Background()
	inf := &fakeInference{}
	h, err := c.NewHookInstance(ctx, Env{Name: "fixture-hook", Inference: inf})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	ev := hookEvents()
	// The calls run in order on one instance: the counts in the answers
	// prove its memory persists from call to call.
	steps := []struct {
		event   string
		want    HookOutput
		hookErr string
	}{
		{event: HookOnStage, want: HookOutput{Arm: "write-manifests", Manifests: []ToolManifest{{BinaryName: "fixture-tool", Content: "git"}}}},
		{event: HookOnSessionStart, want: HookOutput{Arm: "none"}},
		{event: HookOnTaskStart, hookErr: "task-start refused"},
		{event: HookOnInference, want: HookOutput{Arm: "artifact", Text: "tool_use"}},
		{event: HookOnToolCall, want: HookOutput{Arm: "none"}},
		{event: HookOnCompaction, want: HookOutput{Arm: "replace-context", Messages: []Message{{Role: "user", Content: "summary of long story|m-1"}}}},
		{event: HookOnTaskEnd, want: HookOutput{Arm: "reopen-task", Text: "events=7"}},
		{event: HookOnTaskEnd, want: HookOutput{Arm: "none"}},
		{event: HookOnSessionEnd, want: HookOutput{Arm: "artifact", Text: `{"events":9}`}},
	}
	for _, st := range steps {
		out, err := h.Call(ctx, st.event, ev[st.event])
		if st.hookErr != "" {
			var he *HookError
			if !errors.As(err, &he) || he.Msg != st.hookErr {
				t.Fatalf("%s: got %v, want the hook's err %q", st.event, err, st.hookErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", st.event, err)
		}
		if !reflect.DeepEqual(out, st.want) {
			t.Fatalf("%s: got %+v, want %+v", st.event, out, st.want)
		}
	}
	if len(inf.got) != 1 || !reflect.DeepEqual(inf.got[0].Messages, ev[HookOnCompaction][0].msgs) || inf.got[0].Model != nil || inf.got[0].SystemPrompt != nil {
		t.Fatalf("run-inference got %+v", inf.got)
	}
	// A trap fails the call with E-RUN-001 (trap), and the instance is not
	// entered again, as wasmtime refuses to re-enter a trapped instance.
	_, err = h.Call(ctx, HookOnShell, ev[HookOnShell])
	if !errcode.Is(err, errcode.RunCapsule) || sandbox.KindOf(err) != sandbox.ErrTrap {
		t.Fatalf("on-shell: got %v (kind %q), want E-RUN-001 trap", err, sandbox.KindOf(err))
	}
	if _, err := h.Call(ctx, HookOnToolCall, ev[HookOnToolCall]); !errcode.Is(err, errcode.RunCapsule) {
		t.Fatalf("call after a trap: got %v, want E-RUN-001", err)
	}
}

func TestHookInferenceNotConfigured(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "hook", WorldHook)
	ctx := context.Background()
	h, err := c.NewHookInstance(ctx, Env{Name: "fixture-hook"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	_, err = h.Call(ctx, HookOnCompaction, hookEvents()[HookOnCompaction])
	var he *HookError
	if !errors.As(err, &he) || he.Msg != "inference driver is not configured; add inference.driver.artifact to murmur.yaml" {
		t.Fatalf("got %v, want murmur's not-configured err", err)
	}
}

func TestHookInstancesAreSeparate(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "hook", WorldHook)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		h, err := c.NewHookInstance(ctx, Env{Name: "fixture-hook"})
		if err != nil {
			t.Fatal(err)
		}
		out, err := h.Call(ctx, HookOnTaskEnd, hookEvents()[HookOnTaskEnd])
		if err != nil || out.Arm != "reopen-task" || out.Text != "events=1" {
			t.Fatalf("instance %d: got %+v, %v; want a fresh count", i, out, err)
		}
		_ = h.Close(ctx)
	}
}

func TestHookCallChecksFields(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "hook", WorldHook)
	ctx := context.Background()
	h, err := c.NewHookInstance(ctx, Env{Name: "fixture-hook"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	for _, fields := range [][]Value{{Str("t1")}, {Str("t1"), U32(1)}} {
		if _, err := h.Call(ctx, HookOnTaskEnd, fields); !errcode.Is(err, errcode.Internal) {
			t.Fatalf("fields %v: got %v, want E-INTERNAL", fields, err)
		}
	}
	if _, err := h.Call(ctx, "on-nothing", nil); !errcode.Is(err, errcode.Internal) {
		t.Fatalf("unknown event: got %v", err)
	}
}

func TestHookWorldRefusesOtherWorlds(t *testing.T) {
	rt := newRuntime(t)
	b, err := Decode(fixture(t, "tool"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(context.Background(), rt, b, WorldHook); !errcode.Is(err, errcode.RunCapsule) {
		t.Fatalf("a tool compiled as a hook: got %v, want E-RUN-001", err)
	}
	hb, err := Decode(fixture(t, "hook"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(context.Background(), rt, hb, WorldTool); !errcode.Is(err, errcode.RunCapsule) {
		t.Fatalf("a hook compiled as a tool: got %v, want E-RUN-001", err)
	}
}

// TestLiftHookResult: what a hostile guest may lay out is an invalid
// result (a lift error), never a panic; the good layouts lift.
func TestLiftHookResult(t *testing.T) {
	mem := func(b ...byte) fakeMem { return append(fakeMem(b), make([]byte, 64)...) }
	tests := []struct {
		name    string
		mem     fakeMem
		ptr     uint32
		want    HookOutput
		hookErr string
		bad     bool
	}{
		{name: "none", mem: mem(0, 0, 0, 0, 0), want: HookOutput{Arm: "none"}},
		{name: "reopen-task", mem: mem(0, 0, 0, 0, 4, 0, 0, 0, 16, 0, 0, 0, 2, 0, 0, 0, 'g', 'o'), want: HookOutput{Arm: "reopen-task", Text: "go"}},
		{name: "err", mem: mem(1, 0, 0, 0, 16, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 'n', 'o'), hookErr: "no"},
		{name: "empty replace-context", mem: mem(0, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0), want: HookOutput{Arm: "replace-context", Messages: []Message{}}},
		{name: "result tag", mem: mem(2), bad: true},
		{name: "arm tag", mem: mem(0, 0, 0, 0, 5), bad: true},
		{name: "misaligned", mem: mem(0), ptr: 2, bad: true},
		{name: "out of bounds", mem: fakeMem{0, 0, 0, 0}, bad: true},
		{name: "string out of bounds", mem: mem(0, 0, 0, 0, 3, 0, 0, 0, 0xff, 0xff, 0, 0, 2, 0, 0, 0), bad: true},
		{name: "invalid utf-8", mem: mem(0, 0, 0, 0, 3, 0, 0, 0, 16, 0, 0, 0, 1, 0, 0, 0, 0xff), bad: true},
		{name: "huge list", mem: mem(0, 0, 0, 0, 2, 0, 0, 0, 16, 0, 0, 0, 0xff, 0xff, 0xff, 0x0f), bad: true},
		{name: "misaligned list", mem: mem(0, 0, 0, 0, 1, 0, 0, 0, 17, 0, 0, 0, 1, 0, 0, 0), bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, he, err := liftHookResult(tt.mem, tt.ptr)
			var le *abi.LiftError
			switch {
			case tt.bad:
				if !errors.As(err, &le) {
					t.Fatalf("got %+v, %v, %v; want a lift error", out, he, err)
				}
			case tt.hookErr != "":
				if err != nil || he == nil || he.Msg != tt.hookErr {
					t.Fatalf("got %v, %v; want err %q", he, err, tt.hookErr)
				}
			default:
				if err != nil || he != nil || !reflect.DeepEqual(out, tt.want) {
					t.Fatalf("got %+v, %v, %v; want %+v", out, he, err, tt.want)
				}
			}
		})
	}
}

// BenchmarkHookCall is one on-tool-call on a kept instance (the dispatch
// cost of a blocking component hook per event).
func BenchmarkHookCall(b *testing.B) {
	rt := newRuntime(b)
	c := compileFixture(b, rt, "hook", WorldHook)
	ctx := context.Background()
	h, err := c.NewHookInstance(ctx, Env{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)
	ev := hookEvents()[HookOnToolCall]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Call(ctx, HookOnToolCall, ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHookInstantiate is a hook instance's creation, once per hook
// per case.
func BenchmarkHookInstantiate(b *testing.B) {
	rt := newRuntime(b)
	c := compileFixture(b, rt, "hook", WorldHook)
	ctx := context.Background()
	for b.Loop() {
		h, err := c.NewHookInstance(ctx, Env{Name: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		_ = h.Close(ctx)
	}
}

// TestInitialMemoryOverTheLimit: a memory limit below a component's
// initial memory is the memory limit (E-RUN-001, ErrMemory) for a tool
// call and a hook instance, never a host panic (wazero cannot be refused
// an initial memory).
func TestInitialMemoryOverTheLimit(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	env := Env{Name: "small", MemoryLimitBytes: 4096}
	tool := compileFixture(t, rt, "tool", WorldTool)
	_, err := tool.RunTool(ctx, env, ToolInput{Data: str("ehi")})
	if !errcode.Is(err, errcode.RunCapsule) || sandbox.KindOf(err) != sandbox.ErrMemory {
		t.Errorf("tool: got %v (kind %q), want E-RUN-001 memory", err, sandbox.KindOf(err))
	}
	hook := compileFixture(t, rt, "hook", WorldHook)
	if _, err := hook.NewHookInstance(ctx, env); !errcode.Is(err, errcode.RunCapsule) || sandbox.KindOf(err) != sandbox.ErrMemory {
		t.Errorf("hook: got %v (kind %q), want E-RUN-001 memory", err, sandbox.KindOf(err))
	}
}

// TestHookDeadline: a spinning lifecycle call is stopped at the deadline
// (E-RUN-001, ErrDeadline), and the instance is not entered again.
func TestHookDeadline(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "hook", WorldHook)
	ctx := context.Background()
	h, err := c.NewHookInstance(ctx, Env{Name: "spinner", Deadline: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	start := time.Now()
	_, err = h.Call(ctx, HookOnSessionStart, []Value{Str("spin"), Str("1"), Str("s"), Str("m"), Strs(nil)})
	if !errcode.Is(err, errcode.RunCapsule) || sandbox.KindOf(err) != sandbox.ErrDeadline {
		t.Fatalf("got %v (kind %q), want E-RUN-001 deadline", err, sandbox.KindOf(err))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopped after %v", d)
	}
	if _, err := h.Call(ctx, HookOnTaskEnd, hookEvents()[HookOnTaskEnd]); !errcode.Is(err, errcode.RunCapsule) || !strings.Contains(err.Error(), "cannot be entered again") {
		t.Errorf("call after the deadline: %v", err)
	}
}

// A call waiting for the instance while another runs gives up when its
// own context ends, with the context's error and E-EVL-021 (E-EVL-020 for
// a deadline), instead of waiting for the running call to end.
func TestHookCallWaitHonoursItsContext(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "hook", WorldHook)
	ctx := context.Background()
	h, err := c.NewHookInstance(ctx, Env{Name: "spinner", Deadline: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	first := make(chan error, 1)
	go func() {
		_, err := h.Call(ctx, HookOnSessionStart, []Value{Str("spin"), Str("1"), Str("s"), Str("m"), Strs(nil)})
		first <- err
	}()
	for len(h.sem) == 0 { // the spinning call holds the instance
		runtime.Gosched()
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	timed, cancelTimed := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelTimed()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		code   string
		ctxErr error
	}{
		{"cancelled before", cancelled, errcode.Cancelled, context.Canceled},
		{"deadline while waiting", timed, errcode.Timeout, context.DeadlineExceeded},
	} {
		start := time.Now()
		_, err := h.Call(tc.ctx, HookOnTaskEnd, hookEvents()[HookOnTaskEnd])
		if !errcode.Is(err, tc.code) || !errors.Is(err, tc.ctxErr) {
			t.Errorf("%s: got %v, want %s wrapping %v", tc.name, err, tc.code, tc.ctxErr)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: returned after %v, waiting for the running call", tc.name, d)
		}
	}
	if err := <-first; sandbox.KindOf(err) != sandbox.ErrDeadline {
		t.Errorf("the spinning call: %v, want its deadline", err)
	}
}

// TestHookWorldVersionsAndOptionalFunctions: a hook of an older lifecycle
// version is refused naming it (murmur accepts only @0.5.0), as is one
// without a required function; a hook built before the optional functions
// existed compiles, and those events answer none without a call.
func TestHookWorldVersionsAndOptionalFunctions(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	// hook_old.wat is hook_none.wat exporting lifecycle@0.4.0 (hook_old.wit).
	old := fixture(t, "hook_old")
	b, err := Decode(old)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(ctx, rt, b, WorldHook)
	if !errcode.Is(err, errcode.RunCapsule) || !strings.Contains(err.Error(), "component exports murmur:hook/lifecycle@0.4.0: only murmur:hook/lifecycle@0.5.0 is accepted") {
		t.Fatalf("lifecycle@0.4.0: got %v", err)
	}
	// hook_noshell.wat is hook_none.wat without the optional functions nor
	// on-shell, against hook_min.wit without on-shell (hook_noshell.wit).
	noShell := fixture(t, "hook_noshell")
	if b, err = Decode(noShell); err != nil {
		t.Fatal(err)
	}
	if _, err = Compile(ctx, rt, b, WorldHook); !errcode.Is(err, errcode.RunCapsule) || !strings.Contains(err.Error(), "has no on-shell function") {
		t.Fatalf("a hook without on-shell: got %v", err)
	}
	// hook_min.wat is hook_none.wat without the optional functions
	// (on-stage, on-task-start, on-task-end; hook_min.wit).
	min := fixture(t, "hook_min")
	if b, err = Decode(min); err != nil {
		t.Fatal(err)
	}
	c, err := Compile(ctx, rt, b, WorldHook)
	if err != nil {
		t.Fatalf("a hook without the optional functions: %v", err)
	}
	h, err := c.NewHookInstance(ctx, Env{Name: "min"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	for _, ev := range []string{HookOnStage, HookOnTaskStart, HookOnTaskEnd, HookOnSessionEnd} {
		out, err := h.Call(ctx, ev, hookEvents()[ev])
		if err != nil || out.Arm != "none" {
			t.Errorf("%s: got %+v, %v; want none", ev, out, err)
		}
		if h.Has(ev) != (ev == HookOnSessionEnd) {
			t.Errorf("Has(%s) = %v", ev, h.Has(ev))
		}
	}
}

// TestHookAdapterShape: a hook of the preview-1 adapter shape reads its
// environment through the adapter in one event, and the next event's
// record is still lowered with the main module's allocator (the adapter's
// own allocator serves only its imports).
func TestHookAdapterShape(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "p1hook", WorldHook)
	ctx := context.Background()
	h, err := c.NewHookInstance(ctx, Env{Name: "p1hook", Env: []string{"MURMUR_CASE_ID=case-9"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	ev := hookEvents()
	if out, err := h.Call(ctx, HookOnToolCall, ev[HookOnToolCall]); err != nil || out.Arm != "none" {
		t.Fatalf("on-tool-call: %+v, %v", out, err)
	}
	out, err := h.Call(ctx, HookOnTaskEnd, []Value{Str("t1"), Str("failed")})
	if err != nil || out.Arm != "reopen-task" || out.Text != "MURMUR_CASE_ID=case-9|failed" {
		t.Fatalf("on-task-end: %+v, %v; want reopen-task MURMUR_CASE_ID=case-9|failed", out, err)
	}
}

// TestHookReallocTrap: a cabi_realloc that traps while the host lowers an
// event is the call's trap (E-RUN-001), not a panic of the host.
func TestHookReallocTrap(t *testing.T) {
	rt := newRuntime(t)
	c := compileFixture(t, rt, "hook", WorldHook)
	ctx := context.Background()
	h, err := c.NewHookInstance(ctx, Env{Name: "fixture-hook"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	_, err = h.Call(ctx, HookOnTaskEnd, []Value{Str(strings.Repeat("x", 0xdead)), Str("ok")})
	if !errcode.Is(err, errcode.RunCapsule) || sandbox.KindOf(err) != sandbox.ErrTrap || !strings.Contains(err.Error(), "cabi_realloc failed") {
		t.Fatalf("got %v (kind %q), want E-RUN-001 trap in cabi_realloc", err, sandbox.KindOf(err))
	}
}
