package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/internal/hooktest"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// componentHook compiles sandbox/component's hook fixture (testdata/hook.wat:
// it counts its calls in its own memory; see the file for its answers) on
// the test engine's runtime.
func componentHook(t *testing.T) *component.Component {
	t.Helper()
	wasm := componenttest.Fixture(t, "hook")
	bin, err := component.Decode(wasm)
	if err != nil {
		t.Fatal(err)
	}
	c, err := component.Compile(context.Background(), hooktest.Engine(t).Runtime(), bin, component.WorldHook)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// componentSet loads the component hook as "counter" (with manifest) after
// the preview-1 test hooks named in p1.
func componentSet(t *testing.T, manifest string, p1 ...string) *Set {
	t.Helper()
	c := componentHook(t)
	var specs []Spec
	for _, n := range p1 {
		specs = append(specs, Spec{Name: n, Version: "1", Module: hooktest.Module(t)})
	}
	specs = append(specs, Spec{Name: "counter", Version: "1", Component: c, Manifest: []byte(manifest)})
	s, err := Load(hooktest.Engine(t), specs, Options{Deadline: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestComponentHookLifecycle: a component hook goes through the same
// dispatcher as a preview-1 hook. Its instance lives for the case (the
// count in its reopen reason is the case's events: on-stage ran on a
// throwaway instance), its reopen-task is honoured on the first
// on-task-end only, its write-manifests is taken at on-stage, its Err is
// logged, and its artifact at on-session-end is an unsupported-arm fault.
func TestComponentHookLifecycle(t *testing.T) {
	s := componentSet(t, "")
	d, dir := openCase(t, s)
	ctx := context.Background()
	ms, err := d.Stage(ctx, StageEvent{ShellAllow: []string{"git", "ls"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ToolManifest{{BinaryName: "fixture-tool", Content: "git"}}, ms); diff != "" {
		t.Errorf("on-stage manifests (-want +got):\n%s", diff)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d.SessionStart(ctx, SessionStart{CapsuleName: "c", Capabilities: []string{}}))
	must(d.TaskStart(ctx, TaskStart{TaskID: "t1", Source: "task_md"}))
	tool := "calc"
	must(d.Inference(ctx, Inference{Turn: 1, Decision: "tool_use", ToolName: &tool}))
	must(d.ToolCall(ctx, ToolCall{Turn: 1, ToolName: "calc", Status: "ok"}))
	r, err := d.TaskEnd(ctx, TaskEnd{TaskID: "t1", ExitStatus: "ok"})
	if err != nil || r == nil || r.Hook != "counter" || r.Reason != "events=5" {
		t.Fatalf("first TaskEnd = %+v, %v; want counter's reopen-task with events=5", r, err)
	}
	if r, err := d.TaskEnd(ctx, TaskEnd{TaskID: "t1", ExitStatus: "ok"}); err != nil || r != nil {
		t.Fatalf("second TaskEnd = %+v, %v; want none", r, err)
	}
	if f := d.TakeFaults(); len(f) != 0 {
		t.Errorf("faults before session end = %v, want none (an artifact is honoured at on-inference)", f)
	}
	d.SessionEnd(ctx, "ok")
	if diff := cmp.Diff([]Fault{{Hook: "counter", Event: OnSessionEnd, Arm: ArmArtifact}}, d.TakeFaults()); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
	l := readLog(t, dir, "counter")
	for _, want := range []string{"on-task-start: error: task-start refused", "on-session-end: unsupported arm 'artifact' ignored"} {
		if !strings.Contains(l, want) {
			t.Errorf("hook-counter.log = %q, want it to contain %q", l, want)
		}
	}
}

// TestComponentHookTrapIsNotFatal: a trap in on-shell is logged, the other
// hooks still answer, and the trapped instance is not entered again in the
// case (wasmtime's rule): its later events are logged errors too.
func TestComponentHookTrapIsNotFatal(t *testing.T) {
	s := componentSet(t, "", "always-reopen")
	d, dir := openCase(t, s)
	ctx := context.Background()
	if err := d.Shell(ctx, Shell{Turn: 1, Binary: "ls"}); err != nil {
		t.Fatal(err)
	}
	r, err := d.TaskEnd(ctx, TaskEnd{TaskID: "t", ExitStatus: "ok"})
	if err != nil || r == nil || r.Hook != "always-reopen" {
		t.Fatalf("TaskEnd = %+v, %v; want the preview-1 hook's reopen", r, err)
	}
	l := readLog(t, dir, "counter")
	if !strings.Contains(l, "on-shell: error: ") || !strings.Contains(l, "unreachable") {
		t.Errorf("hook-counter.log = %q, want the trap", l)
	}
	if !strings.Contains(l, "on-task-end: error: ") || !strings.Contains(l, "cannot be entered again") {
		t.Errorf("hook-counter.log = %q, want the refused re-entry", l)
	}
	d.SessionEnd(ctx, "ok")
}

// TestComponentHookBindingAndAsync: a bound component hook gets only its
// event; an async one runs on its worker (its reopen-task at on-task-end
// is discarded, as every async answer is, without a fault: the arm is the
// event's; its on-session-end artifact is a fault).
func TestComponentHookBindingAndAsync(t *testing.T) {
	ctx := context.Background()
	s := componentSet(t, "binding: on-task-end\ncommit_policy: reopen-task\n")
	d, _ := openCase(t, s)
	if err := d.ToolCall(ctx, ToolCall{Turn: 1, ToolName: "calc"}); err != nil {
		t.Fatal(err)
	}
	r, err := d.TaskEnd(ctx, TaskEnd{TaskID: "t", ExitStatus: "ok"})
	if err != nil || r == nil || r.Reason != "events=1" {
		t.Fatalf("bound TaskEnd = %+v, %v; want events=1 (the tool call was not delivered)", r, err)
	}
	d.SessionEnd(ctx, "ok")

	s = componentSet(t, "execution_mode: async\n")
	d, _ = openCase(t, s)
	if err := d.ToolCall(ctx, ToolCall{Turn: 1, ToolName: "calc"}); err != nil {
		t.Fatal(err)
	}
	if r, err := d.TaskEnd(ctx, TaskEnd{TaskID: "t", ExitStatus: "ok"}); err != nil || r != nil {
		t.Fatalf("async TaskEnd = %+v, %v; want nothing honoured", r, err)
	}
	d.SessionEnd(ctx, "ok")
	want := []Fault{{Hook: "counter", Event: OnSessionEnd, Arm: ArmArtifact}}
	if diff := cmp.Diff(want, d.TakeFaults()); diff != "" {
		t.Errorf("async faults (-want +got):\n%s", diff)
	}
}

// textModel answers every request with one text block and records it.
type textModel struct{ got []*inference.Request }

func (m *textModel) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	m.got = append(m.got, req)
	return &inference.Response{StopReason: "end_turn", Blocks: []inference.Block{{Type: "text", Text: "short"}}, Raw: []byte("0123456789abcdef")}, nil
}

// TestComponentHookRunInference: on-compaction's run-inference goes to the
// case's model as a preview-1 hook's does (murmur's request: the messages,
// 8192 tokens, inference.model), is recorded for the trace, and the
// answer comes back as the replace-context the compaction takes; without
// a model it is murmur's not-configured error, which fails compaction.
func TestComponentHookRunInference(t *testing.T) {
	ctx := context.Background()
	s := componentSet(t, "binding: on-compaction\ncommit_policy: replace-context\n")
	d, _ := openCase(t, s)
	m := &textModel{}
	d.UseModel(m, "model-a")
	msgs, err := d.Compaction(ctx, Compaction{Messages: []Message{{Role: "user", Content: "long"}}, Threshold: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Message{{Role: "user", Content: "short|model-a"}}, msgs); diff != "" {
		t.Errorf("replaced context (-want +got):\n%s", diff)
	}
	if len(m.got) != 1 || m.got[0].MaxTokens != RunInferenceMaxTokens || m.got[0].Model != "model-a" || len(m.got[0].Messages) != 1 {
		t.Fatalf("model requests = %+v", m.got)
	}
	if recs := d.TakeInferences(); len(recs) != 1 || recs[0].Hook != "counter" || recs[0].Decision != "end_turn" {
		t.Errorf("inference records = %+v", recs)
	}
	d.SessionEnd(ctx, "ok")

	d, _ = openCase(t, s)
	_, err = d.Compaction(ctx, Compaction{Messages: []Message{{Role: "user", Content: "long"}}})
	if err == nil || !strings.Contains(err.Error(), "inference driver is not configured; add inference.driver.artifact to murmur.yaml") {
		t.Fatalf("Compaction without a model = %v, want murmur's not-configured error failing it", err)
	}
	d.SessionEnd(ctx, "ok")
}

// TestComponentHookInstantiationFailsTheSession: every component hook is
// instantiated at on-session-start, as murmur's hook runtime is at launch;
// one that cannot be (here: its one page of memory is over the capsule's
// memory limit) fails the session with E-RUN-001 in murmur's words.
func TestComponentHookInstantiationFailsTheSession(t *testing.T) {
	ctx := context.Background()
	e, err := sandbox.NewEngine(ctx, sandbox.Config{MemoryLimitBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	wasm := componenttest.Fixture(t, "hook")
	bin, err := component.Decode(wasm)
	if err != nil {
		t.Fatal(err)
	}
	c, err := component.Compile(ctx, e.Runtime(), bin, component.WorldHook)
	if err != nil {
		t.Fatal(err)
	}
	// Bound to on-task-end only: it is instantiated at session start all the same.
	s, err := Load(e, []Spec{{Name: "counter", Version: "1.2.3", Component: c, Manifest: []byte("binding: on-task-end\n")}}, Options{Deadline: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := openCase(t, s)
	err = d.SessionStart(ctx, SessionStart{})
	if !errcode.Is(err, errcode.RunCapsule) || !strings.Contains(err.Error(), "failed to instantiate hook counter@1.2.3") || sandbox.KindOf(err) != sandbox.ErrMemory {
		t.Fatalf("SessionStart = %v (kind %q), want E-RUN-001 failed to instantiate, memory", err, sandbox.KindOf(err))
	}
	d.SessionEnd(ctx, "failed")
}

// TestComponentHookScope: a component hook granted filesystem.scope gets
// that folder of the session created for it; a scope folder that is a link
// out of the session is not followed: the hook cannot be instantiated and
// the session fails.
func TestComponentHookScope(t *testing.T) {
	ctx := context.Background()
	c := componentHook(t)
	s, err := Load(hooktest.Engine(t), []Spec{{Name: "counter", Version: "1", Component: c, Scope: "hookdata"}}, Options{Deadline: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d, dir := openCase(t, s)
	if err := d.SessionStart(ctx, SessionStart{}); err != nil {
		t.Fatal(err)
	}
	d.SessionEnd(ctx, "ok")
	if fi, err := os.Stat(filepath.Join(dir, "hookdata")); err != nil || !fi.IsDir() {
		t.Fatalf("scope folder: %v", err)
	}

	d, dir = openCase(t, s)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "hookdata")); err != nil {
		t.Fatal(err)
	}
	if err := d.SessionStart(ctx, SessionStart{}); !errcode.Is(err, errcode.IO) && !errcode.Is(err, errcode.RunCapsule) {
		t.Fatalf("scope through a link out: got %v, want the session to fail", err)
	}
	d.SessionEnd(ctx, "failed")
}
