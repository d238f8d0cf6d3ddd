package loop

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// fakeModel serves canned responses and keeps the requests it saw.
type fakeModel struct {
	responses []string
	requests  []inference.Request
}

func (m *fakeModel) Complete(ctx context.Context, req *inference.Request, _ inference.Observer) (*inference.Response, error) {
	b, _ := json.Marshal(req)
	var copy inference.Request
	_ = json.Unmarshal(b, &copy)
	m.requests = append(m.requests, copy)
	if len(m.requests) > len(m.responses) {
		return nil, errcode.New(errcode.ReplayExhausted, "out of responses")
	}
	return inference.ParseResponse([]byte(m.responses[len(m.requests)-1]))
}

// fakeTools answers every call with a function of its input.
type fakeTools struct {
	calls []string
	reply func(name string, input json.RawMessage) (session.ToolReply, error)
}

func (f *fakeTools) Inventory() []inference.Tool {
	return []inference.Tool{{Name: "calc", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
}

func (f *fakeTools) Call(ctx context.Context, name string, input json.RawMessage) (session.ToolReply, error) {
	f.calls = append(f.calls, name+" "+string(input))
	if f.reply != nil {
		return f.reply(name, input)
	}
	return session.ToolReply{Text: "42"}, nil
}

const (
	callCalc = `{"stop_reason":"tool_call","content":[{"type":"tool_call","id":"c1","name":"calc","input":{"expression":"6*7"}}]}`
	endTurn  = `{"stop_reason":"end_turn","content":[{"type":"text","text":"The answer"},{"type":"text","text":"is 42."}],"usage":{"input_tokens":100,"output_tokens":7}}`
)

func newCase(t *testing.T, responses []string, tools *fakeTools) (*pipeline.Case, *fakeModel) {
	t.Helper()
	dir := t.TempDir()
	tr, err := trace.Create(filepath.Join(dir, "trace.jsonl"), "ses_test", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	m := &fakeModel{responses: responses}
	c := loopCase(dir, "What is 6*7?", &session.Session{
		Trace: tr, Model: m, Tools: tools,
		Config: session.LoopConfig{CapsuleName: "qs", CapsuleVersion: "0.1.0", Model: "m", MaxTurns: 3, MaxTokens: 8192, Workdir: dir, Containment: "advisory", DeclaredContainment: "advisory"},
	})
	return c, m
}

// sessionLines are the trace lines of the session, without the task_start
// and task_end around it (TestLoopWrapsTheSessionInATask checks those).
func sessionLines(c *pipeline.Case) []trace.Line {
	var lines []trace.Line
	for _, l := range sessionOf(c).Trace.Lines() {
		if l.Type != trace.TypeTaskStart && l.Type != trace.TypeTaskEnd {
			lines = append(lines, l)
		}
	}
	return lines
}

func eventTypes(c *pipeline.Case) []string {
	var types []string
	for _, l := range sessionLines(c) {
		types = append(types, l.Type)
	}
	return types
}

func TestLoopOutcomes(t *testing.T) {
	tests := []struct {
		name      string
		responses []string
		wantExit  string
		wantText  string
		wantCode  string // error code when Run fails
		wantTypes []string
	}{
		{"answer without tools", []string{endTurn}, "ok", "The answer\nis 42.", "",
			[]string{"session_start", "inference", "session_end"}},
		{"tool then answer", []string{callCalc, endTurn}, "ok", "The answer\nis 42.", "",
			[]string{"session_start", "inference", "tool_call", "inference", "session_end"}},
		{"max_tokens ends ok", []string{`{"stop_reason":"max_tokens","content":[{"type":"text","text":"partial"}]}`}, "ok", "partial", "",
			[]string{"session_start", "inference", "session_end"}},
		{"model error", []string{`{"stop_reason":"error","error":"overloaded"}`}, "failed", "error: overloaded", "",
			[]string{"session_start", "inference", "session_end"}},
		{"unsupported stop reason", []string{`{"stop_reason":"pause_turn","content":[]}`}, "failed", "error: unsupported stop_reason 'pause_turn'", "",
			[]string{"session_start", "inference", "session_end"}},
		{"tool_call without blocks", []string{`{"stop_reason":"tool_call","content":[{"type":"text","text":"hm"}]}`}, "failed",
			"error: response stop_reason=tool_call but no tool_call blocks were present", "",
			[]string{"session_start", "inference", "session_end"}},
		{"max turns", []string{callCalc, callCalc, callCalc, endTurn}, "max_turns_reached", "error: inference loop exceeded 3 turns", "",
			[]string{"session_start", "inference", "tool_call", "inference", "tool_call", "inference", "tool_call", "session_end"}},
		{"provider runs out", []string{callCalc}, "", "", errcode.ReplayExhausted,
			[]string{"session_start", "inference", "tool_call"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newCase(t, tt.responses, &fakeTools{})
			err := Stage{}.Run(context.Background(), c)
			if got := errcode.Code(err); got != tt.wantCode {
				t.Fatalf("Run error = %v (code %q), want code %q", err, got, tt.wantCode)
			}
			if outcomeOf(c).ExitStatus != tt.wantExit || outcomeOf(c).ResultText != tt.wantText {
				t.Errorf("outcome = %q %q, want %q %q", outcomeOf(c).ExitStatus, outcomeOf(c).ResultText, tt.wantExit, tt.wantText)
			}
			if diff := cmp.Diff(tt.wantTypes, eventTypes(c)); diff != "" {
				t.Errorf("trace events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoopSendsMurmurMessages(t *testing.T) {
	tools := &fakeTools{reply: func(string, json.RawMessage) (session.ToolReply, error) {
		return session.ToolReply{Text: "division by zero", IsError: true}, nil
	}}
	c, m := newCase(t, []string{callCalc, endTurn}, tools)
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if len(m.requests) != 2 {
		t.Fatalf("%d requests, want 2", len(m.requests))
	}
	first, second := m.requests[0], m.requests[1]
	if !strings.HasPrefix(first.System, "[Capsule]\nName: qs\nVersion: 0.1.0\nWorkdir: ") {
		t.Errorf("system prompt starts %q", first.System[:40])
	}
	got, _ := json.Marshal(second.Messages)
	want := `[{"content":[{"text":"What is 6*7?","type":"text"}],"role":"user"},` +
		`{"content":[{"type":"tool_call","id":"c1","name":"calc","input":{"expression":"6*7"}}],"role":"assistant"},` +
		`{"content":[{"text":"division by zero","type":"text"}],"is_error":true,"role":"tool","tool_call_id":"c1"}]`
	if string(got) != want {
		t.Errorf("second request messages:\n got %s\nwant %s", got, want)
	}
	lines := sessionLines(c)
	var call map[string]any
	if err := json.Unmarshal(lines[2].JSON, &call); err != nil {
		t.Fatal(err)
	}
	if call["status"] != "error" || call["tool_name"] != "calc" || call["input_bytes"] != float64(len(`{"expression":"6*7"}`)) {
		t.Errorf("tool_call event = %v", call)
	}
	// Both turns are counted as murmur counts them; the provider's usage,
	// which only the second response reports, is kept beside the count.
	var inf, turn0 map[string]any
	_ = json.Unmarshal(lines[3].JSON, &inf)
	if inf["provider_input_tokens"] != float64(100) || inf["provider_output_tokens"] != float64(7) || inf["tokens_source"] != "cl100k_base" || inf["input_tokens"] == float64(100) {
		t.Errorf("second inference event = %v, want a count and the provider's usage", inf)
	}
	_ = json.Unmarshal(lines[1].JSON, &turn0)
	if _, ok := turn0["provider_input_tokens"]; ok || turn0["tokens_source"] != "cl100k_base" || turn0["tool_name"] != "calc" || turn0["decision"] != "tool_call" {
		t.Errorf("first inference event = %v, want a count for calc and no provider usage", turn0)
	}
}

func TestLoopStopsWhenToolboxSaysSo(t *testing.T) {
	tools := &fakeTools{reply: func(string, json.RawMessage) (session.ToolReply, error) {
		return session.ToolReply{}, context.DeadlineExceeded
	}}
	c, _ := newCase(t, []string{callCalc, endTurn}, tools)
	err := Stage{}.Run(context.Background(), c)
	if err != context.DeadlineExceeded {
		t.Fatalf("Run = %v, want the toolbox's error", err)
	}
	if sessionOf(c).Trace.Ended() {
		t.Error("loop wrote session_end; Report writes the fallback")
	}
}

// TestLoopWrapsTheSessionInATask: murmur's task_start and task_end come
// first and last, task_end ok when the loop returned normally (even for a
// failed session) and failed when it returned an error, with the totals.
func TestLoopWrapsTheSessionInATask(t *testing.T) {
	tests := []struct {
		name      string
		responses []string
		wantExit  string
	}{
		{"ok", []string{callCalc, endTurn}, "ok"},
		{"failed session is still an ok task", []string{`{"stop_reason":"error","error":"x"}`}, "ok"},
		{"loop error", []string{callCalc}, "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newCase(t, tt.responses, &fakeTools{})
			_ = Stage{}.Run(context.Background(), c)
			lines := sessionOf(c).Trace.Lines()
			var first, last map[string]any
			_ = json.Unmarshal(lines[0].JSON, &first)
			_ = json.Unmarshal(lines[len(lines)-1].JSON, &last)
			if first["event_type"] != "task_start" || first["source"] != "task_md" || first["message_parts_bytes"] != float64(len("What is 6*7?")) {
				t.Errorf("first event = %v", first)
			}
			if last["event_type"] != "task_end" || last["exit_status"] != tt.wantExit || last["task_id"] != first["task_id"] {
				t.Errorf("last event = %v, want task_end %s of %v", last, tt.wantExit, first["task_id"])
			}
			if last["turns"] != float64(sessionOf(c).Trace.Totals().TotalTurns) {
				t.Errorf("task_end turns = %v, want %d", last["turns"], sessionOf(c).Trace.Totals().TotalTurns)
			}
		})
	}
}

// TestSkillCallsAreTracedAsSkills: murmur traces a skill as skill_call and
// does not count it among the tool calls.
func TestSkillCallsAreTracedAsSkills(t *testing.T) {
	tools := &fakeTools{reply: func(string, json.RawMessage) (session.ToolReply, error) {
		return session.ToolReply{Text: "be brief", Skill: true}, nil
	}}
	c, _ := newCase(t, []string{callCalc, endTurn}, tools)
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	want := []string{"session_start", "inference", "skill_call", "inference", "session_end"}
	if diff := cmp.Diff(want, eventTypes(c)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if n := sessionOf(c).Trace.Totals().TotalToolCalls; n != 0 {
		t.Errorf("total_tool_calls = %d, want 0", n)
	}
}
