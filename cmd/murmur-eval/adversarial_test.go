package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// adversarialCase is one case of TestAdversarialToolsAreContained: a tool
// call the model makes, and what the trace must say about it.
type adversarialCase struct {
	id    string
	tool  string
	input map[string]any
	check func(t *testing.T, call, shell map[string]any, sessionDir string)
}

// TestAdversarialToolsAreContained runs misbehaving tools through the whole
// pipeline, in one run, next to a well-behaved case: each is stopped by its
// own limit, recorded with its code or exit status, and every case of the
// run still completes.
func TestAdversarialToolsAreContained(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	if c, err := net.Dial("tcp", ln.Addr().String()); err != nil {
		t.Fatalf("control: the listener is not reachable from the test itself: %v", err)
	} else {
		c.Close()
	}

	cases := []adversarialCase{
		{"plain", "", nil, nil},
		{"endless-loop", "spin", map[string]any{}, func(t *testing.T, call, _ map[string]any, _ string) {
			wantToolError(t, call, "E-RUN-001", "deadline")
		}},
		{"memory-bomb", "grow", map[string]any{}, func(t *testing.T, call, _ map[string]any, _ string) {
			wantToolError(t, call, "E-RUN-001", "memory")
		}},
		{"fork-bomb", "sh", map[string]any{"command": "i=0; while [ $i -lt 100 ]; do sleep 5 & i=$((i+1)); done; wait"}, func(t *testing.T, call, shell map[string]any, _ string) {
			if out := fmt.Sprint(call["output"]); !strings.Contains(out, "Cannot fork") {
				t.Errorf("output %q does not show the refused fork", out)
			}
			if shell["exit_code"] == float64(0) {
				t.Errorf("exit_code 0, want the shell's failure")
			}
		}},
		{"disk-filler", "sh", map[string]any{"command": "head -c 5000000 /dev/zero > big.bin"}, func(t *testing.T, _, shell map[string]any, dir string) {
			if shell["resource_limit"] != "max_file_size_bytes" || shell["exit_code"] != float64(128+25) {
				t.Errorf("shell event %v, want exit 153 and resource_limit max_file_size_bytes", shell)
			}
			if st, err := os.Stat(filepath.Join(dir, "big.bin")); err == nil && st.Size() > 1<<20 {
				t.Errorf("big.bin has %d bytes, past the 1 MiB limit", st.Size())
			}
		}},
		{"network", "bash", map[string]any{"command": fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)}, func(t *testing.T, call, shell map[string]any, _ string) {
			if strings.Contains(fmt.Sprint(call["output"]), "Stdout:\nconnected") || shell["exit_code"] == float64(0) {
				t.Errorf("the tool reached 127.0.0.1:%d: %v", port, call["output"])
			}
		}},
		{"environment", "sh", map[string]any{"command": "env"}, func(t *testing.T, call, _ map[string]any, dir string) {
			out := fmt.Sprint(call["output"])
			for _, leak := range []string{"ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "sk-leak"} {
				if strings.Contains(out, leak) {
					t.Errorf("the tool saw %s:\n%s", leak, out)
				}
			}
			if !strings.Contains(out, "HOME="+filepath.Join(dir, ".capsule-home")) {
				t.Errorf("HOME is not the session's .capsule-home:\n%s", out)
			}
		}},
		{"host-files", "sh", map[string]any{"command": "cat /etc/passwd; ls .."}, func(t *testing.T, call, _ map[string]any, _ string) {
			out := fmt.Sprint(call["output"])
			if strings.Contains(out, "root:") || strings.Count(out, "Permission denied") < 2 {
				t.Errorf("output %q, want both reads denied", out)
			}
		}},
		{"huge-output", "sh", map[string]any{"command": "head -c 100000 /dev/zero | tr '\\0' a"}, func(t *testing.T, call, shell map[string]any, dir string) {
			if !strings.Contains(fmt.Sprint(call["output"]), "Output truncated") {
				t.Errorf("output not marked truncated")
			}
			logs, _ := filepath.Glob(filepath.Join(dir, "logs", "shell-*.log"))
			if len(logs) != 1 {
				t.Fatalf("logs/shell-*.log: %v, want one", logs)
			}
			if b, _ := os.ReadFile(logs[0]); bytes.Count(b, []byte("a")) < 100000 {
				t.Errorf("%s holds %d a's, want the full 100000", logs[0], bytes.Count(b, []byte("a")))
			}
		}},
	}

	dir := copyCapsule(t, "cmd/murmur-eval/testdata/adversarial")
	installTool(t, dir, "spin", "./cmd/murmur-eval/testdata/hang/tools/hang")
	installTool(t, dir, "grow", "./sandbox/testdata/grow")
	writeAdversarialCases(t, dir, cases)

	// Shell tools run as an unprivileged user, who must be able to reach the
	// run folder: t.TempDir is private, os.TempDir is not.
	base, err := os.MkdirTemp("", "adversarial-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "run")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := newFixture(t, dir).with(withEnv("ANTHROPIC_API_KEY=sk-leak-a", "AWS_SECRET_ACCESS_KEY=sk-leak-b", "OPENAI_API_KEY=sk-leak-c")).start(ctx, out,
		"--workers", "2", "--timeout", "60s")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			t.Fatal(err)
		}
		t.Fatalf("exit %d, want 0\nstderr:\n%s", exitErr.ExitCode(), stderr.String())
	}

	byCase := resultsByCase(t, out)
	for _, tc := range cases {
		row := byCase[tc.id]
		if row["status"] != "passed" {
			t.Errorf("case %s: status %v (%v), want passed: the run goes on", tc.id, row["status"], row["error_message"])
			continue
		}
		if tc.check == nil {
			continue
		}
		sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
		call, shell := toolEvents(t, filepath.Join(sdir, "trace.jsonl"))
		if call == nil {
			t.Errorf("case %s: no tool_call event", tc.id)
			continue
		}
		if (tc.tool == "sh" || tc.tool == "bash") && shell == nil {
			t.Errorf("case %s: no shell event: the command never ran (%v)", tc.id, call["output"])
			continue
		}
		t.Run(tc.id, func(t *testing.T) { tc.check(t, call, shell, sdir) })
	}
}

func wantToolError(t *testing.T, call map[string]any, code, word string) {
	t.Helper()
	if call["status"] != "error" || call["error_code"] != code || !strings.Contains(fmt.Sprint(call["output"]), word) {
		t.Errorf("tool_call = status %v, error_code %v, output %q; want error, %s, mentioning %q",
			call["status"], call["error_code"], call["output"], code, word)
	}
}

// toolEvents returns the first tool_call and shell events of a trace.
func toolEvents(t *testing.T, path string) (call, shell map[string]any) {
	t.Helper()
	for _, line := range readLines(t, path) {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		switch e["event_type"] {
		case "tool_call":
			if call == nil {
				call = e
			}
		case "shell":
			if shell == nil {
				shell = e
			}
		}
	}
	return call, shell
}

// writeAdversarialCases writes cases.jsonl and one recording per case: the
// tool call (when there is one), then an answer.
func writeAdversarialCases(t *testing.T, dir string, cases []adversarialCase) {
	t.Helper()
	var sc []scripted
	for _, tc := range cases {
		c := scripted{id: tc.id}
		if tc.tool != "" {
			c.calls = []toolUse{{tc.tool, tc.input}}
		}
		sc = append(sc, c)
	}
	writeScripted(t, dir, sc)
}
