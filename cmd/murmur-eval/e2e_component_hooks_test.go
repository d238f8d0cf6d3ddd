package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// TestE2EComponentHook runs a capsule whose hook is a component of
// murmur's hook world (sandbox/component/testdata/hook.wat, built as
// sandbox/component's tests build it) through the binary, its model turns
// replayed. The hook has no binding, so it gets every event on one
// instance for the case: its first on-task-end answers reopen-task with
// the count of events it has seen (on-session-start, on-task-start,
// on-inference, on-task-end: "events=4"), the loop reopens the task once
// and the second on-task-end answers none; its on-task-start Err is logged;
// its on-session-end artifact is an unsupported arm, traced as
// hook_dispatch_error; its on-stage write-manifests (a throwaway instance)
// writes tools/fixture-tool/murmur.yaml in the session.
func TestE2EComponentHook(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "capsule")
	hookDir := filepath.Join(dir, "hooks", "counter")
	for _, d := range []string{hookDir, filepath.Join(dir, "recordings")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(hookDir, "counter.wasm"), string(componenttest.Fixture(t, "hook")))
	writeFile(t, filepath.Join(hookDir, "murmur.yaml"), "name: counter\nversion: 0.1.0\nruntime: hook\n"+
		"commit_policy: reopen-task\nrequires_files: [counter.wasm]\n")
	if r := runBinary(t, "pack", hookDir, "--store", filepath.Join(dir, ".murmur", "artifacts")); r.code != 0 {
		t.Fatalf("pack counter: exit %d\n%s", r.code, r.stderr)
	}
	writeFile(t, filepath.Join(dir, "murmur.yaml"), `name: counted
version: 0.1.0
artifacts:
  - name: counter
    runtime: hook
    version: 0.1.0
inference:
  transport: http
  endpoint: https://api.anthropic.com
  model: claude-sonnet-4-5
  driver:
    artifact: murmur-driver-anthropic
  max_turns: 4
`)
	answer := `{"stop_reason":"end_turn","content":[{"type":"text","text":"42"}],"usage":{"input_tokens":20,"output_tokens":3}}`
	writeFile(t, filepath.Join(dir, "cases.jsonl"), `{"case_id": "counted-1", "task": "What is 6*7?"}`+"\n")
	writeFile(t, filepath.Join(dir, "recordings", "counted-1.jsonl"), answer+"\n"+answer+"\n")

	out, r := newFixture(t, dir).run()
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	row := resultsByCase(t, out)["counted-1"]
	if row["status"] != "passed" || row["turns"] != int32(2) || row["reopens"] != int32(1) {
		t.Errorf("results row: status %v turns %v reopens %v, want passed 2 1", row["status"], row["turns"], row["reopens"])
	}
	sid, _ := row["session_id"].(string)
	ses := filepath.Join(out, "sessions", sid)
	var types []string
	var reopened, fault map[string]any
	for _, l := range readLines(t, filepath.Join(ses, "trace.jsonl")) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		types = append(types, m["event_type"].(string))
		switch m["event_type"] {
		case "task_reopened":
			reopened = m
		case "hook_dispatch_error":
			fault = m
		}
	}
	want := "task_start session_start inference session_end task_reopened session_start inference session_end task_end hook_dispatch_error"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("trace events:\n got %s\nwant %s", got, want)
	}
	if reopened["hook_name"] != "counter" || reopened["reopen_number"] != 1.0 {
		t.Errorf("task_reopened = %v", reopened)
	}
	if fault["hook_name"] != "counter" || fault["event"] != "on-session-end" || fault["arm"] != "artifact" {
		t.Errorf("hook_dispatch_error = %v", fault)
	}
	task := readFile(t, filepath.Join(ses, "task.md"))
	if !strings.Contains(task, "\n## Reopen 1 — from hook `counter`\n\nevents=4") {
		t.Errorf("task.md = %q, want the reopen feedback events=4", task)
	}
	logs := readFile(t, filepath.Join(ses, "logs", "hook-counter.log"))
	for _, w := range []string{"on-task-start: error: task-start refused", "on-session-end: unsupported arm 'artifact' ignored"} {
		if !strings.Contains(logs, w) {
			t.Errorf("hook-counter.log = %q, want %q", logs, w)
		}
	}
	if _, err := os.Stat(filepath.Join(ses, "tools", "fixture-tool", "murmur.yaml")); err != nil {
		t.Errorf("on-stage write-manifests: %v", err)
	}
}

// hookNoneComponent is sandbox/component's hook_none.wat fixture: a component of murmur's
// hook world answering none to every event, a stand-in for a hook whose work is a side
// effect.
func hookNoneComponent(t *testing.T) []byte {
	t.Helper()
	return componenttest.Fixture(t, "hook_none")
}
