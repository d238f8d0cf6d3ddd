package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// processCapsule is the quickstart's calc tool in a transport: process
// capsule whose command is claude.
const processManifest = `name: proc
version: 0.1.0
artifacts:
  - name: calc
    runtime: tool
    version: 0.1.0
inference:
  transport: process
  command: claude
  model: claude-sonnet-4-5
  max_turns: 3
  system_prompt: Use the calc tool.
capabilities:
  limits:
    memory_bytes: 67108864
    deadline_seconds: 10
observability:
  eval:
    scorers:
      - type: exit_ok
`

const processCases = `{"case_id": "plain", "task": "scenario end_turn", "expected": {"result_equals": "done"}}
{"case_id": "calc", "task": "scenario tool calc {\"expression\":\"6*7\"}\nWhat is 6*7?", "expected": {"result_equals": "tool said: 42"}}
{"case_id": "runaway", "task": "scenario turns 5"}
{"case_id": "crash", "task": "scenario no_result"}
`

// TestProcessTransportEndToEnd runs the real binary on a process capsule
// with internal/fakeclaude first on PATH as "claude": the CLI calls the
// WASM calc tool through the bridge, in the case's sandbox.
func TestProcessTransportEndToEnd(t *testing.T) {
	t.Parallel()
	e2eBinary(t)
	dir := copyCapsule(t, "examples/quickstart")
	installTool(t, dir, "calc", "./examples/quickstart/tools/calc")
	for name, text := range map[string]string{"murmur.yaml": processManifest, "cases.jsonl": processCases} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := t.TempDir()
	if err := goBuild(moduleRoot(t), nil, "-o", filepath.Join(bin, "claude"), "./internal/fakeclaude"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(reachableTempDir(t), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := newFixture(t, dir).live().start(ctx, out, "--workers", "2", "--max-error-rate", "1")
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "PATH=") {
			cmd.Env[i] = "PATH=" + bin + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	rows := resultsByCase(t, out)
	want := map[string]map[string]any{
		"plain":   {"status": "passed", "exit_status": "ok", "error_code": nil, "turns": int64(1), "tool_calls": int64(0), "input_tokens": int64(0), "model": "claude-sonnet-4-5"},
		"calc":    {"status": "passed", "exit_status": "ok", "error_code": nil, "turns": int64(2), "tool_calls": int64(1), "input_tokens": int64(0)},
		"runaway": {"status": "failed", "exit_status": "failed", "error_code": nil, "turns": int64(3)},
		"crash":   {"status": "error", "exit_status": "failed", "error_code": errcode.RunAgentLoop, "error_stage": "loop", "turns": int64(1)},
	}
	for id, cols := range want {
		row := rows[id]
		if row == nil {
			t.Errorf("no row for %s", id)
			continue
		}
		t.Logf("%s: loop_ms %v, launch_ms %v", id, row["loop_ms"], row["launch_ms"])
		for col, v := range cols {
			got := row[col]
			if i, ok := got.(int32); ok {
				got = int64(i)
			}
			if got != v {
				t.Errorf("%s: %s = %#v, want %#v", id, col, row[col], v)
			}
		}
	}
	// The calc case's session: its trace holds one tool_call for the call
	// that ran in the bridge, its result and MURMUR.md are there.
	sid, _ := rows["calc"]["session_id"].(string)
	sdir := filepath.Join(out, "sessions", sid)
	var types []string
	for _, l := range readLines(t, filepath.Join(sdir, "trace.jsonl")) {
		ev := parseEvent(t, l)
		types = append(types, ev.EventType)
		if ev.EventType == "tool_call" && !strings.Contains(l, `"tool_name":"calc","input":{"expression":"6*7"},"input_bytes":20,"output_bytes":2,`) {
			t.Errorf("tool_call %s", l)
		}
	}
	if got := strings.Join(types, " "); got != "task_start session_start inference tool_call inference session_end task_end" {
		t.Errorf("calc trace: %s", got)
	}
	if b, err := os.ReadFile(filepath.Join(sdir, "out", "result.txt")); err != nil || string(b) != "tool said: 42" {
		t.Errorf("result.txt %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(sdir, "MURMUR.md")); err != nil || !strings.Contains(string(b), "- **calc** (v0.1.0, tool) — Evaluates an arithmetic expression") {
		t.Errorf("MURMUR.md: %v\n%s", err, b)
	}
}
