package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/fakeclaude/fakeclaudetest"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// fakeClaude is internal/fakeclaude, built once by TestMain.
var fakeClaude string

func TestMain(m *testing.M) {
	path, cleanup, err := fakeclaudetest.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeClaude = path
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// processCase is a process-transport case whose task.md is task.
func processCase(t *testing.T, task string, tools *fakeTools) *pipeline.Case {
	t.Helper()
	c, _ := newCase(t, nil, tools)
	pipeline.Store(c, staging.Result, &staging.Staged{Task: task})
	if err := os.WriteFile(filepath.Join(c.SessionDir, "task.md"), []byte(task), 0o644); err != nil {
		t.Fatal(err)
	}
	sessionOf(c).Model = nil
	sessionOf(c).Process = &session.ProcessCLI{Path: fakeClaude, Env: []string{"FAKE_SECRET=from-host"}}
	sessionOf(c).Config.MaxTokens = 0
	sessionOf(c).Config.SystemPrompt = "Be brief."
	return c
}

// traceEvents decodes the case's trace lines, dropping the three common
// fields and the ids and durations that change from run to run.
func traceEvents(t *testing.T, c *pipeline.Case) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range sessionOf(c).Trace.Lines() {
		var m map[string]any
		if err := json.Unmarshal(l.JSON, &m); err != nil {
			t.Fatal(err)
		}
		if m["session_id"] != "ses_test" {
			t.Errorf("line %s: session_id", l.JSON)
		}
		for _, k := range []string{"session_id", "timestamp", "task_id", "context_id", "duration_ms", "effective_grants", "capabilities", "containment_declared", "containment_achieved", "workdir_exec", "capsule_name", "capsule_version", "system_prompt_sha256"} {
			delete(m, k)
		}
		out = append(out, m)
	}
	return out
}

func sessionEndEvent(turns, tools float64, exit string) map[string]any {
	return map[string]any{"event_type": "session_end", "total_turns": turns, "total_input_tokens": 0.0, "total_output_tokens": 0.0,
		"total_tool_calls": tools, "total_shell_calls": 0.0, "exit_status": exit}
}

func taskEndEvent(turns, tools float64, exit string) map[string]any {
	return map[string]any{"event_type": "task_end", "exit_status": exit, "turns": turns, "input_tokens": 0.0, "output_tokens": 0.0,
		"tool_calls": tools, "shell_calls": 0.0, "reopen_count": 0.0}
}

func procInference(turn float64, decision string, tool any) map[string]any {
	return map[string]any{"event_type": "inference", "turn": turn, "input_tokens": 0.0, "output_tokens": 0.0,
		"decision": decision, "tool_name": tool, "tokens_source": "none"}
}

var (
	taskStartEvent = map[string]any{"event_type": "task_start", "source": "task_md"}
	startEvent     = map[string]any{"event_type": "session_start", "model": "m", "max_turns": 3.0, "tools_declared": []any{"calc"}, "system_prompt_source": "manifest"}
)

func TestProcessLoopEndTurn(t *testing.T) {
	c := processCase(t, "scenario end_turn", &fakeTools{})
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if outcomeOf(c).ExitStatus != trace.ExitOK || outcomeOf(c).ResultText != "done" {
		t.Errorf("outcome %+v", outcomeOf(c))
	}
	ts := taskStartEvent
	ts["message_parts_bytes"] = float64(len("scenario end_turn"))
	want := []map[string]any{ts, startEvent, procInference(0, "end_turn", nil), sessionEndEvent(1, 0, "ok"), taskEndEvent(1, 0, "ok")}
	if diff := cmp.Diff(want, traceEvents(t, c)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestProcessLoopToolCallThroughTheBridge(t *testing.T) {
	for _, toolErr := range []bool{false, true} {
		t.Run(fmt.Sprint("error=", toolErr), func(t *testing.T) {
			tools := &fakeTools{reply: func(name string, input json.RawMessage) (session.ToolReply, error) {
				return session.ToolReply{Text: "42", IsError: toolErr}, nil
			}}
			c := processCase(t, `scenario tool calc {"expression":"6*7"}`+"\nthe rest of the task", tools)
			sessionOf(c).Config.IncludeToolOutput = true
			if err := (Stage{}).Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			if outcomeOf(c).ExitStatus != trace.ExitOK || outcomeOf(c).ResultText != "tool said: 42" {
				t.Errorf("outcome %+v", outcomeOf(c))
			}
			if diff := cmp.Diff([]string{`calc {"expression":"6*7"}`}, tools.calls); diff != "" {
				t.Errorf("toolbox calls (-want +got):\n%s", diff)
			}
			status := "ok"
			if toolErr {
				status = "error"
			}
			call := map[string]any{"event_type": "tool_call", "turn": 0.0, "tool_name": "calc", "input": map[string]any{"expression": "6*7"},
				"input_bytes": float64(len(`{"expression":"6*7"}`)), "output": "42", "output_bytes": 2.0, "status": status}
			got := traceEvents(t, c)
			if len(got) != 7 {
				t.Fatalf("trace has %d lines: %v", len(got), got)
			}
			// include_tool_output also writes the prompt verbatim, as murmur does.
			start := map[string]any{"system_prompt": "Be brief."}
			for k, v := range startEvent {
				start[k] = v
			}
			want := []map[string]any{start, procInference(0, "tool_call", "calc"), call, procInference(1, "end_turn", nil), sessionEndEvent(2, 1, "ok"), taskEndEvent(2, 1, "ok")}
			if diff := cmp.Diff(want, got[1:]); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProcessLoopArgvAndEnvironment(t *testing.T) {
	c := processCase(t, "scenario argv", &fakeTools{})
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	var argv []string
	if err := json.Unmarshal([]byte(outcomeOf(c).ResultText), &argv); err != nil {
		t.Fatalf("result %q: %v", outcomeOf(c).ResultText, err)
	}
	if len(argv) != 17 {
		t.Fatalf("argv %q", argv)
	}
	var mcp struct {
		MCPServers map[string]struct {
			URL     string
			Headers map[string]string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(argv[11]), &mcp); err != nil {
		t.Fatalf("--mcp-config %q: %v", argv[11], err)
	}
	srv := mcp.MCPServers["claude_bridge"]
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || len(srv.Headers["Authorization"]) != len("Bearer ")+32 {
		t.Errorf("bridge %+v", srv)
	}
	argv[11] = "<mcp-config>"
	want := []string{"--print", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
		"--model", "m", "--tools", "mcp__claude_bridge__calc", "--mcp-config", "<mcp-config>", "--strict-mcp-config",
		"--permission-mode", "bypassPermissions", "--system-prompt", trustNotice + "\n" + untrustedNotice + "\n\nBe brief."}
	if diff := cmp.Diff(want, argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}

	c = processCase(t, "scenario env FAKE_SECRET", &fakeTools{})
	if err := (Stage{}).Run(context.Background(), c); err != nil || outcomeOf(c).ResultText != "from-host" {
		t.Errorf("the CLI's environment: %q, %v", outcomeOf(c).ResultText, err)
	}
}

func TestProcessLoopThinkingIsNoTurn(t *testing.T) {
	c := processCase(t, "scenario thinking", &fakeTools{})
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if got := sessionOf(c).Trace.Totals().TotalTurns; got != 1 || outcomeOf(c).ResultText != "42" {
		t.Errorf("%d turns, result %q; want 1, 42", got, outcomeOf(c).ResultText)
	}
}

func TestProcessLoopFailures(t *testing.T) {
	tests := []struct {
		task, msg string
		turns     int
		agent     bool // the agent's own ending: scored, not a stage error
	}{
		{"scenario turns 5", "inference subprocess exceeded 3 turns", 3, true},
		{"scenario turns 3", "", 3, false},
		{"scenario max_turns_result", "inference subprocess returned result subtype 'error_max_turns'", 1, true},
		{"scenario error_result", "inference subprocess returned result subtype 'error_during_execution'; stderr: API Error: 529 overloaded", 1, false},
		{"scenario no_result", "inference subprocess closed stdout without producing a result; stderr: fakeclaude: leaving early", 1, false},
		{"scenario malformed", "malformed stream-json line from inference subprocess: invalid character 'o' looking for beginning of object key string; stderr: fakeclaude: about to print garbage", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			c := processCase(t, tt.task, &fakeTools{})
			err := (Stage{}).Run(context.Background(), c)
			got := traceEvents(t, c)
			if tt.msg == "" {
				if err != nil || outcomeOf(c).ExitStatus != trace.ExitOK {
					t.Fatalf("err %v, outcome %+v", err, outcomeOf(c))
				}
				return
			}
			switch {
			case tt.agent && err != nil:
				t.Errorf("err = %v, want none: the agent's own ending is scored, not an error", err)
			case !tt.agent && (!errcode.Is(err, errcode.RunAgentLoop) || err.Error() != tt.msg):
				t.Errorf("err = %v (%s), want E-RUN-007 %q", err, errcode.Code(err), tt.msg)
			}
			if outcomeOf(c).ExitStatus != trace.ExitFailed || outcomeOf(c).ResultText != "error: "+tt.msg {
				t.Errorf("outcome %+v, want failed with error: %s", outcomeOf(c), tt.msg)
			}
			n := len(got)
			if n < 3 {
				t.Fatalf("trace %v", got)
			}
			if diff := cmp.Diff([]map[string]any{sessionEndEvent(float64(tt.turns), 0, "failed"), taskEndEvent(float64(tt.turns), 0, "failed")}, got[n-2:]); diff != "" {
				t.Errorf("trace end (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProcessLoopCaseTimeoutKillsTheCLI(t *testing.T) {
	c := processCase(t, "scenario hang", &fakeTools{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	err := (Stage{}).Run(ctx, c)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the case's deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
	// The session has not ended: Report writes murmur's fallback
	// session_end, as for any loop that returned an error.
	if sessionOf(c).Trace.Ended() || outcomeOf(c).ExitStatus != "" {
		t.Errorf("ended %v, outcome %+v", sessionOf(c).Trace.Ended(), outcomeOf(c))
	}
}

func TestProcessLoopStopsWhenTheToolboxSaysSo(t *testing.T) {
	tools := &fakeTools{reply: func(string, json.RawMessage) (session.ToolReply, error) {
		return session.ToolReply{}, errcode.New(errcode.RunWorkdirSize, "session workdir exceeded workdir_max_bytes")
	}}
	c := processCase(t, `scenario tool calc {}`, tools)
	err := (Stage{}).Run(context.Background(), c)
	if !errcode.Is(err, errcode.RunWorkdirSize) {
		t.Errorf("err = %v, want E-RUN-013", err)
	}
	for _, l := range sessionOf(c).Trace.Lines() {
		if l.Type == trace.TypeToolCall {
			t.Errorf("traced %s", l.JSON)
		}
	}
}

func TestProcessLoopBridgeRefusesAWrongToken(t *testing.T) {
	tools := &fakeTools{}
	c := processCase(t, "scenario badtoken", tools)
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if outcomeOf(c).ResultText != "401" || len(tools.calls) != 0 {
		t.Errorf("the bridge answered %q to a wrong token; toolbox calls %v", outcomeOf(c).ResultText, tools.calls)
	}
}

// TestProcessLoopManyCasesAtOnce: cases running together each get their
// own bridge, and each bridge runs only its own case's calls.
func TestProcessLoopManyCasesAtOnce(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			tools := &fakeTools{reply: func(name string, input json.RawMessage) (session.ToolReply, error) {
				return session.ToolReply{Text: string(input)}, nil
			}}
			input := fmt.Sprintf(`{"case":%d}`, i)
			c := processCase(t, "scenario tool calc "+input, tools)
			if err := (Stage{}).Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			if outcomeOf(c).ResultText != "tool said: "+input || len(tools.calls) != 1 || tools.calls[0] != "calc "+input {
				t.Errorf("result %q, calls %v", outcomeOf(c).ResultText, tools.calls)
			}
		})
	}
}
