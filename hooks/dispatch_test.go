package hooks

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/internal/hooktest"
)

// hookSpec is a test hook: its name picks the guest's behaviour.
type hookSpec struct {
	name, manifest, scope string
	overflow              capsule.Overflow
}

// testSet loads the test hooks on a shared engine.
func testSet(t *testing.T, opts Options, hs ...hookSpec) *Set { return loadTestSet(t, opts, hs...) }

func testSetB(b *testing.B, hs ...hookSpec) *Set { return loadTestSet(b, Options{}, hs...) }

func loadTestSet(t testing.TB, opts Options, hs ...hookSpec) *Set {
	t.Helper()
	e := hooktest.Engine(t)
	var specs []Spec
	for _, h := range hs {
		specs = append(specs, Spec{Name: h.name, Version: "0.1.0", Module: hooktest.Module(t),
			Manifest: []byte("name: " + h.name + "\nversion: 0.1.0\nruntime: hook\n" + h.manifest), Scope: h.scope, Overflow: h.overflow})
	}
	if opts.Deadline == 0 {
		opts.Deadline = 30 * time.Second
	}
	s, err := Load(e, specs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openCase(t *testing.T, s *Set) (*Dispatcher, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "task.md"), []byte("What is 6*7?"), 0o644); err != nil {
		t.Fatal(err)
	}
	return s.Open(Case{SessionDir: dir, CaseID: "case-1"}, nil), dir
}

func readLog(t *testing.T, dir, hook string) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "logs", "hook-"+hook+".log"))
	return string(b)
}

func TestLoadRefusesWhatMurmurRefuses(t *testing.T) {
	_, err := Load(nil, []Spec{{Name: "judge", Version: "1.0.0", Manifest: []byte("binding: on-task-end\nexecution_mode: async\ncommit_policy: reopen-task\n")}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "hook judge@1.0.0 invalid config: async-with-commit not supported") {
		t.Fatalf("Load = %v, want murmur's invalid config error", err)
	}
}

// TestUnsupportedArmIsAFault: an arm the event does not honour is a log
// line and a hook_dispatch_error; the event's honoured arm is taken.
func TestUnsupportedArmIsAFault(t *testing.T) {
	s := testSet(t, Options{}, hookSpec{name: "bad-arm"})
	d, dir := openCase(t, s)
	ctx := context.Background()
	if err := d.ToolCall(ctx, ToolCall{Turn: 0, ToolName: "calc", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	want := []Fault{{Hook: "bad-arm", Event: OnToolCall, Arm: ArmWriteManifests}}
	if diff := cmp.Diff(want, d.TakeFaults()); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
	if got := d.TakeFaults(); got != nil {
		t.Errorf("faults taken twice: %v", got)
	}
	if l := readLog(t, dir, "bad-arm"); !strings.Contains(l, "on-tool-call: unsupported arm 'write-manifests' ignored") {
		t.Errorf("hook log = %q", l)
	}
}

// TestHookFailuresAreNotFatal: a non-zero exit, a panic, an error answer
// and a deadline are logged, and the events go on.
func TestHookFailuresAreNotFatal(t *testing.T) {
	s := testSet(t, Options{Deadline: 2 * time.Second},
		hookSpec{name: "fail"}, hookSpec{name: "panic"}, hookSpec{name: "error"}, hookSpec{name: "spin"}, hookSpec{name: "always-reopen"})
	d, dir := openCase(t, s)
	reopen, err := d.TaskEnd(context.Background(), TaskEnd{TaskID: "tsk_1", ExitStatus: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if reopen == nil || reopen.Hook != "always-reopen" || reopen.Reason != "not good enough" {
		t.Errorf("reopen = %+v, want the working hook's", reopen)
	}
	if f := d.TakeFaults(); len(f) != 0 {
		t.Errorf("faults = %v, want none (blocking errors are only logged, as murmur's)", f)
	}
	for hook, want := range map[string]string{
		"fail":  "on-task-end: error: hook exited with status 3: hook broke on on-task-end",
		"panic": "on-task-end: error: hook exited with status 2: panic: assignment to entry in nil map",
		"error": "on-task-end: error: hook says no",
		"spin":  "deadline",
	} {
		if l := readLog(t, dir, hook); !strings.Contains(l, want) {
			t.Errorf("hook-%s.log = %q, want it to contain %q", hook, l, want)
		}
	}
}

// TestFirstReopenWins: blocking hooks run in manifest order; the first
// reopen-task answer wins.
func TestFirstReopenWins(t *testing.T) {
	s := testSet(t, Options{}, hookSpec{name: "none"}, hookSpec{name: "reopen-once", scope: "."}, hookSpec{name: "always-reopen"})
	d, _ := openCase(t, s)
	reopen, err := d.TaskEnd(context.Background(), TaskEnd{TaskID: "t", ExitStatus: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if reopen == nil || reopen.Hook != "reopen-once" || reopen.Reason != "  Please also show your working.  " {
		t.Errorf("reopen = %+v, want reopen-once's", reopen)
	}
}

// TestBindingFilters: a hook bound to one event gets only that one.
func TestBindingFilters(t *testing.T) {
	s := testSet(t, Options{}, hookSpec{name: "echo-env", manifest: "binding: on-tool-call\n", scope: "seen"})
	d, dir := openCase(t, s)
	ctx := context.Background()
	_ = d.SessionStart(ctx, SessionStart{CapsuleName: "qs"})
	_ = d.ToolCall(ctx, ToolCall{ToolName: "calc"})
	d.SessionEnd(ctx, "ok")
	if got := echoed(t, filepath.Join(dir, "seen")); len(got) != 1 || got[0].Event != OnToolCall {
		t.Errorf("events seen = %+v, want on-tool-call only", got)
	}
}

type echo struct {
	Event   string            `json:"event"`
	ABI     int               `json:"abi"`
	Env     map[string]string `json:"env"`
	Payload json.RawMessage   `json:"payload"`
}

func echoed(t *testing.T, dir string) []echo {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatalf("the hook wrote nothing: %v", err)
	}
	defer f.Close()
	var out []echo
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e echo
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestHookEnvironmentAndScope: a hook sees murmur's MURMUR_* variables
// and nothing of the host; its granted scope is its "/" and is created.
func TestHookEnvironmentAndScope(t *testing.T) {
	t.Setenv("MURMUR_EVAL_SECRET_FROM_HOST", "leak")
	opts := Options{EvalConfig: `{"dataset_id":"ds-1","scorers":[]}`, DatasetID: "ds-1", OTelEndpoint: "http://127.0.0.1:4318"}
	s := testSet(t, opts, hookSpec{name: "echo-env", scope: "hookdata"})
	d, dir := openCase(t, s)
	ctx := context.Background()
	if err := d.Inference(ctx, Inference{Turn: 0, InputTokens: 10, OutputTokens: 5, Decision: "end_turn"}); err != nil {
		t.Fatal(err)
	}
	_ = d.ToolCall(ctx, ToolCall{ToolName: "calc", Status: "ok"})
	_ = d.Shell(ctx, Shell{Binary: "git", Command: strings.Repeat("x", 250)})
	d.SessionEnd(ctx, "ok")
	got := echoed(t, filepath.Join(dir, "hookdata"))
	if len(got) != 4 {
		t.Fatalf("%d events echoed, want 4", len(got))
	}
	wantEnv := map[string]string{
		"MURMUR_EVAL_CONFIG": `{"dataset_id":"ds-1","scorers":[]}`, "MURMUR_CASE_ID": "case-1",
		"MURMUR_DATASET_ID": "ds-1", "MURMUR_OTEL_ENDPOINT": "http://127.0.0.1:4318",
	}
	if diff := cmp.Diff(wantEnv, got[0].Env); diff != "" {
		t.Errorf("hook environment (-want +got):\n%s", diff)
	}
	if got[0].ABI != ABI || got[0].Event != OnInference {
		t.Errorf("first event = %+v", got[0])
	}
	var shell Shell
	_ = json.Unmarshal(got[2].Payload, &shell)
	if len(shell.Command) != 200 {
		t.Errorf("on-shell command is %d characters, want it cut to 200", len(shell.Command))
	}
	var end SessionEnd
	_ = json.Unmarshal(got[3].Payload, &end)
	if end.TotalTurns != 1 || end.TotalInputTokens != 10 || end.TotalOutputTokens != 5 || end.TotalToolCalls != 1 || end.TotalShellCalls != 1 || end.ExitStatus != "ok" {
		t.Errorf("on-session-end totals = %+v", end)
	}
	if _, err := os.Stat(filepath.Join(dir, "events.jsonl")); err == nil {
		t.Error("the hook wrote outside its scope")
	}
}

// TestHookWithoutScopeSeesNoFiles: default deny, no preopen at all.
func TestHookWithoutScopeSeesNoFiles(t *testing.T) {
	s := testSet(t, Options{}, hookSpec{name: "peek"})
	d, dir := openCase(t, s)
	_ = d.SessionStart(context.Background(), SessionStart{})
	l := readLog(t, dir, "peek")
	if !strings.Contains(l, "read task.md: open task.md:") || !strings.Contains(l, "list /: open /:") {
		t.Errorf("hook-peek.log = %q, want both reads to fail", l)
	}
}

// TestCompactionErrIsFatal: an on-compaction Err is a *CompactionError;
// a replace-context answer comes back as the messages.
func TestCompaction(t *testing.T) {
	ctx := context.Background()
	d, _ := openCase(t, testSet(t, Options{}, hookSpec{name: "compact-err"}, hookSpec{name: "compact"}))
	_, err := d.Compaction(ctx, Compaction{Messages: []Message{{Role: "user", Content: `[{"text":"hi","type":"text"}]`}}})
	var ce *CompactionError
	if !errors.As(err, &ce) || ce.Hook != "compact-err" || ce.Error() != "compact-err: summariser down" {
		t.Fatalf("Compaction error = %v, want compact-err's Err", err)
	}
	d, _ = openCase(t, testSet(t, Options{}, hookSpec{name: "none"}, hookSpec{name: "compact"}))
	msgs, err := d.Compaction(ctx, Compaction{Messages: []Message{{Role: "user", Content: `[]`}, {Role: "assistant", Content: `[]`}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{{Role: "user", Content: `"Summary of 2 messages: the user asked for 6*7."`}}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("replacement (-want +got):\n%s", diff)
	}
}

// TestAsyncOverflowDrops: an async hook's full queue drops events with a
// queue-overflow fault each and a summary in its log; the drain waits for
// what was queued.
func TestAsyncOverflowDrops(t *testing.T) {
	s := testSet(t, Options{}, hookSpec{name: "slow", manifest: "execution_mode: async\n"})
	s.queueDepth = 1
	d, dir := openCase(t, s)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if err := d.ToolCall(ctx, ToolCall{Turn: i, ToolName: "calc"}); err != nil {
			t.Fatal(err)
		}
	}
	d.SessionEnd(ctx, "ok")
	faults := d.TakeFaults()
	if len(faults) < 2 {
		t.Fatalf("faults = %v, want queue-overflow faults", faults)
	}
	for _, f := range faults {
		if f.Hook != "slow" || f.Arm != "queue-overflow" {
			t.Errorf("fault = %+v, want queue-overflow", f)
		}
	}
	if l := readLog(t, dir, "slow"); !strings.Contains(l, "events dropped on queue overflow (on_overflow: drop)") {
		t.Errorf("hook-slow.log = %q", l)
	}
}

// TestAsyncBlockWaits: on_overflow: block never drops.
func TestAsyncBlockWaits(t *testing.T) {
	s := testSet(t, Options{}, hookSpec{name: "slow", manifest: "execution_mode: async\n", overflow: capsule.OverflowBlock})
	s.queueDepth = 1
	d, _ := openCase(t, s)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		_ = d.ToolCall(ctx, ToolCall{Turn: i, ToolName: "calc"})
	}
	d.SessionEnd(ctx, "ok")
	if f := d.TakeFaults(); len(f) != 0 {
		t.Errorf("faults = %v, want none", f)
	}
}

// TestNilDispatcher: a capsule without hooks gets a nil dispatcher.
func TestNilDispatcher(t *testing.T) {
	var s *Set
	d := s.Open(Case{}, nil)
	ctx := context.Background()
	if d != nil || d.Bound(OnInference) || d.Inference(ctx, Inference{}) != nil {
		t.Fatal("nil dispatcher is not inert")
	}
	if r, err := d.TaskEnd(ctx, TaskEnd{}); r != nil || err != nil {
		t.Fatal("nil dispatcher reopened")
	}
	d.SessionEnd(ctx, "ok")
}

// TestStageHasNoMurmurEnv: on-stage goes to blocking hooks bound to it or
// to every event, with no MURMUR_* variables, and returns the manifests.
func TestStageHasNoMurmurEnv(t *testing.T) {
	s := testSet(t, Options{EvalConfig: "{}"},
		hookSpec{name: "echo-env", scope: "e"},
		hookSpec{name: "none", manifest: "binding: on-tool-call\n"},
		hookSpec{name: "bad-arm", manifest: "execution_mode: async\n"},
		hookSpec{name: "shell-desc", manifest: "binding: on-stage\ncommit_policy: write-manifests\n"})
	d, dir := openCase(t, s)
	ms, err := d.Stage(context.Background(), StageEvent{ShellAllow: []string{"git", "ls"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].BinaryName != "git" || ms[1].BinaryName != "ls" {
		t.Errorf("manifests = %+v", ms)
	}
	got := echoed(t, filepath.Join(dir, "e"))
	if len(got) != 1 || got[0].Event != OnStage || len(got[0].Env) != 0 || string(got[0].Payload) != `{"shell_allow":["git","ls"]}` {
		t.Errorf("on-stage seen as %+v", got)
	}
	if f := d.TakeFaults(); len(f) != 0 {
		t.Errorf("faults = %v, want none (the async hook gets no on-stage)", f)
	}
}

// trapModule is a WASI command whose _start executes unreachable.
var trapModule = []byte{
	0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00,
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
	0x03, 0x02, 0x01, 0x00,
	0x07, 0x0a, 0x01, 0x06, '_', 's', 't', 'a', 'r', 't', 0x00, 0x00,
	0x0a, 0x05, 0x01, 0x03, 0x00, 0x00, 0x0b, // body: unreachable, end
}

// TestTrapIsNotFatal: a real trap (unreachable) is the hook's Err: logged,
// and the next hook still answers.
func TestTrapIsNotFatal(t *testing.T) {
	e := hooktest.Engine(t)
	trap, err := e.Compile(context.Background(), "trapper", trapModule)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(e, []Spec{
		{Name: "trapper", Version: "1", Module: trap},
		{Name: "always-reopen", Version: "1", Module: hooktest.Module(t)},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, dir := openCase(t, s)
	r, err := d.TaskEnd(context.Background(), TaskEnd{TaskID: "t", ExitStatus: "ok"})
	if err != nil || r == nil || r.Hook != "always-reopen" {
		t.Fatalf("TaskEnd = %+v, %v", r, err)
	}
	if l := readLog(t, dir, "trapper"); !strings.Contains(l, "on-task-end: error: ") || !strings.Contains(l, "unreachable") {
		t.Errorf("hook-trapper.log = %q", l)
	}
}

// TestRunInferenceWithoutModel: with no model (the process transport),
// run_inference answers murmur's error.
func TestRunInferenceWithoutModel(t *testing.T) {
	d, _ := openCase(t, testSet(t, Options{}, hookSpec{name: "ask-model"}))
	r, err := d.TaskEnd(context.Background(), TaskEnd{TaskID: "t", ExitStatus: "ok"})
	if err != nil || r == nil || r.Reason != "judge error: inference driver is not configured; add inference.driver.artifact to murmur.yaml" {
		t.Fatalf("TaskEnd = %+v, %v", r, err)
	}
	if recs := d.TakeInferences(); len(recs) != 0 {
		t.Errorf("records = %v, want none", recs)
	}
}

// TestFormationIDReachesEveryEvent: the host's MURMUR_FORMATION_ID goes
// with every event, and is on-stage's only variable.
func TestFormationIDReachesEveryEvent(t *testing.T) {
	s := testSet(t, Options{EvalConfig: `{"scorers":[]}`}, hookSpec{name: "echo-env", scope: "hookdata"})
	dir := t.TempDir()
	d := s.Open(Case{SessionDir: dir, CaseID: "case-1", FormationID: "fm-7"}, nil)
	ctx := context.Background()
	if _, err := d.Stage(ctx, StageEvent{}); err != nil {
		t.Fatal(err)
	}
	d.SessionEnd(ctx, "ok")
	got := echoed(t, filepath.Join(dir, "hookdata"))
	if len(got) != 2 {
		t.Fatalf("%d events echoed, want on-stage and on-session-end", len(got))
	}
	want := []map[string]string{
		{"MURMUR_FORMATION_ID": "fm-7"},
		{"MURMUR_FORMATION_ID": "fm-7", "MURMUR_CASE_ID": "case-1", "MURMUR_EVAL_CONFIG": `{"scorers":[]}`},
	}
	for i, w := range want {
		if diff := cmp.Diff(w, got[i].Env); diff != "" {
			t.Errorf("%s environment (-want +got):\n%s", got[i].Event, diff)
		}
	}
}
