package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/internal/hooktest"
)

// hookCapsule writes a capsule whose one artifact is the test hook named
// hook (internal/hooktest/guest), bound to on-task-end with commit policy
// reopen-task and granted the session folder, packed into the project
// store, with one case whose recorded turns are recorded (JSONL lines).
func hookCapsule(t *testing.T, hook string, recorded []string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "capsule")
	hookDir := filepath.Join(dir, "hooks", hook)
	if err := os.MkdirAll(hookDir, 0o755); err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile(hooktest.Wasm(t))
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(hookDir, hook+".wasm"), string(wasm))
	write(filepath.Join(hookDir, "murmur.yaml"), "name: "+hook+"\nversion: 0.1.0\nruntime: hook\n"+
		"binding: on-task-end\ncommit_policy: reopen-task\nrequires_files: ["+hook+".wasm]\n")
	if r := runBinary(t, "pack", hookDir, "--store", filepath.Join(dir, ".murmur", "artifacts")); r.code != 0 {
		t.Fatalf("pack %s: exit %d\n%s", hook, r.code, r.stderr)
	}
	write(filepath.Join(dir, "murmur.yaml"), `name: judged
version: 0.1.0
artifacts:
  - name: `+hook+`
    runtime: hook
    version: 0.1.0
    capabilities:
      filesystem:
        scope: .
inference:
  transport: http
  endpoint: https://api.anthropic.com
  model: claude-sonnet-4-5
  driver:
    artifact: murmur-driver-anthropic
  max_turns: 4
`)
	write(filepath.Join(dir, "cases.jsonl"), `{"case_id": "judged-1", "task": "What is 6*7?"}`+"\n")
	write(filepath.Join(dir, "recordings", "judged-1.jsonl"), strings.Join(recorded, "\n")+"\n")
	return dir
}

// TestE2EReopenHook runs capsules with an on-task-end hook through the
// binary: a hook satisfied by the second attempt passes the case with one
// reopen; a hook that always reopens exhausts murmur's default budget (1)
// and fails the case (a model failure, not a harness error: exit 0); a
// judge that asks the model through run-inference reopens once.
func TestE2EReopenHook(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	answer := `{"stop_reason":"end_turn","content":[{"type":"text","text":"42"}],"usage":{"input_tokens":20,"output_tokens":3}}`
	judgeNo := `{"stop_reason":"end_turn","content":[{"type":"text","text":"no: show the working"}],"usage":{"input_tokens":9,"output_tokens":5}}`
	judgeYes := `{"stop_reason":"end_turn","content":[{"type":"text","text":"yes"}],"usage":{"input_tokens":9,"output_tokens":1}}`
	tests := []struct {
		hook, status, taskExit string
		reopens                float64
		recorded               []string
		turns                  int32
		events                 string
	}{
		{"reopen-once", "passed", "ok", 1, []string{answer, answer}, 2,
			"task_start session_start inference session_end task_reopened session_start inference session_end task_end"},
		{"always-reopen", "failed", "reopen_budget_exhausted", 1, []string{answer, answer}, 2,
			"task_start session_start inference session_end task_reopened session_start inference session_end task_end"},
		// The judge asks the model (run-inference): its completions are
		// recorded turns too, traced with origin hook:ask-model.
		{"ask-model", "passed", "ok", 1, []string{answer, judgeNo, answer, judgeYes}, 4,
			"task_start session_start inference session_end inference task_reopened session_start inference session_end inference task_end"},
	}
	for _, tt := range tests {
		t.Run(tt.hook, func(t *testing.T) {
			t.Parallel()
			dir := hookCapsule(t, tt.hook, tt.recorded)
			out, r := newFixture(t, dir).run()
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
			}
			rows := resultsByCase(t, out)
			row := rows["judged-1"]
			if row["status"] != tt.status || row["turns"] != tt.turns || row["exit_status"] != "ok" || row["reopens"] != int32(tt.reopens) {
				t.Errorf("results row: status %v turns %v exit_status %v reopens %v, want %s %d ok %v", row["status"], row["turns"], row["exit_status"], row["reopens"], tt.status, tt.turns, tt.reopens)
			}
			sid, _ := row["session_id"].(string)
			lines := readLines(t, filepath.Join(out, "sessions", sid, "trace.jsonl"))
			var types []string
			var end, reopened map[string]any
			for _, l := range lines {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatal(err)
				}
				types = append(types, m["event_type"].(string))
				switch m["event_type"] {
				case "task_end":
					end = m
				case "task_reopened":
					reopened = m
				}
			}
			if got := strings.Join(types, " "); got != tt.events {
				t.Errorf("trace events:\n got %s\nwant %s", got, tt.events)
			}
			if end["exit_status"] != tt.taskExit || end["reopen_count"] != tt.reopens {
				t.Errorf("task_end = %v", end)
			}
			if reopened["hook_name"] != tt.hook || reopened["reopen_number"] != 1.0 {
				t.Errorf("task_reopened = %v", reopened)
			}
			task, _ := os.ReadFile(filepath.Join(out, "sessions", sid, "task.md"))
			if !strings.Contains(string(task), "\n## Reopen 1 — from hook `"+tt.hook+"`\n\n") {
				t.Errorf("task.md = %q", task)
			}
		})
	}
}
