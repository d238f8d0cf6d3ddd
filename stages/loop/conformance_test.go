package loop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Conformance tests named after murmur's integration tests
// (crates/murmur-cli/tests/<file>.rs::<function>); the table in
// docs/murmur-compatibility.md lists every row.

func decodeLines(t *testing.T, lines []trace.Line) []map[string]any {
	t.Helper()
	out := make([]map[string]any, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal(l.JSON, &out[i]); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
	}
	return out
}

// trace.rs::trace_two_turn_session_all_event_types: task_start first,
// task_end last, every event carries the session id, and session_end's
// totals are the sums of the inference and tool_call events.
func TestMurmur_trace_two_turn_session_all_event_types(t *testing.T) {
	c, _ := newCase(t, []string{callCalc, endTurn}, &fakeTools{})
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	events := decodeLines(t, sessionOf(c).Trace.Lines())
	var types []string
	var in, out float64
	calls := 0
	for _, e := range events {
		types = append(types, e["event_type"].(string))
		if e["session_id"] != "ses_test" {
			t.Errorf("%v has session_id %v", e["event_type"], e["session_id"])
		}
		switch e["event_type"] {
		case "inference":
			in += e["input_tokens"].(float64)
			out += e["output_tokens"].(float64)
		case "tool_call":
			calls++
		}
	}
	want := []string{"task_start", "session_start", "inference", "tool_call", "inference", "session_end", "task_end"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Fatalf("event types (-want +got):\n%s", diff)
	}
	end := events[len(events)-2]
	if end["total_turns"] != float64(2) || end["total_input_tokens"] != in || end["total_output_tokens"] != out || end["total_tool_calls"] != float64(calls) {
		t.Errorf("session_end = %v; sums: %v in, %v out, %d calls", end, in, out, calls)
	}
	if end["exit_status"] != "ok" {
		t.Errorf("session_end exit_status = %v", end["exit_status"])
	}
}

// outage is a model that cannot be reached.
type outage struct{}

func (outage) Complete(context.Context, *inference.Request, inference.Observer) (*inference.Response, error) {
	return nil, errcode.New(errcode.ProviderUnavailable, "connection refused")
}

// trace.rs::trace_session_end_written_on_failed_exit: murmur ends the
// session "not ok" and writes task_end last when the model server is gone.
// murmur-eval differs on purpose (RATIONALE.md "Why are errors and
// timeouts left out of the pass rate, and counted by an error budget?"): the loop returns the outage's code,
// the case is an error, task_end(failed) is written and the Report stage
// writes the fallback session_end.
func TestMurmur_trace_session_end_written_on_failed_exit(t *testing.T) {
	c, _ := newCase(t, nil, &fakeTools{})
	sessionOf(c).Model = outage{}
	err := Stage{}.Run(context.Background(), c)
	if !errcode.Is(err, errcode.ProviderUnavailable) {
		t.Fatalf("Run = %v, want %s", err, errcode.ProviderUnavailable)
	}
	events := decodeLines(t, sessionOf(c).Trace.Lines())
	last := events[len(events)-1]
	if last["event_type"] != "task_end" || last["exit_status"] != "failed" {
		t.Errorf("last event = %v, want task_end failed", last)
	}
	if sessionOf(c).Trace.Ended() {
		t.Error("the loop wrote session_end; the Report stage writes it")
	}
}

// system_prompt.rs::inline_system_prompt_appears_in_every_api_call (and
// system_prompt_file_contents_injected_as_system_param, no_system_prompt_field_sends_no_system_param): the [Capsule] block
// comes first on every request, the capsule's prompt after it.
func TestMurmur_inline_system_prompt_appears_in_every_api_call(t *testing.T) {
	for _, prompt := range []string{"Be terse.", ""} {
		c, m := newCase(t, []string{callCalc, endTurn}, &fakeTools{})
		sessionOf(c).Config.SystemPrompt = prompt
		if err := (Stage{}).Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		for i, r := range m.requests {
			if !strings.HasPrefix(r.System, "[Capsule]\nName: qs\n") || !strings.HasSuffix(r.System, "\n\n"+prompt) {
				t.Errorf("prompt %q, request %d: system = %q", prompt, i, r.System)
			}
		}
	}
}

// system_prompt.rs::trace_records_the_prompt_verbatim_only_when_tool_output_is_included:
// session_start.system_prompt is the capsule's prompt (without the
// [Capsule] block), written only with trace.include_tool_output.
func TestMurmur_trace_records_the_prompt_verbatim_only_when_tool_output_is_included(t *testing.T) {
	for _, include := range []bool{false, true} {
		c, _ := newCase(t, []string{endTurn}, &fakeTools{})
		sessionOf(c).Config.SystemPrompt = "Be terse."
		sessionOf(c).Config.IncludeToolOutput = include
		if err := (Stage{}).Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		start := decodeLines(t, sessionLines(c))[0]
		got, ok := start["system_prompt"]
		if ok != include || include && got != "Be terse." {
			t.Errorf("include_tool_output=%v: system_prompt = %v (present %v)", include, got, ok)
		}
		if start["system_prompt_source"] != "manifest" || start["system_prompt_sha256"] == nil {
			t.Errorf("session_start = %v", start)
		}
	}
}

// trace.rs (capsule-runtime) tool_call_records_declared_state_effect and
// tool_call_records_declared_resource_id: the tool's reserved metadata is
// written verbatim on tool_call, after status; absent when not declared.
func TestMurmur_tool_call_records_declared_state_effect(t *testing.T) {
	for _, tc := range []struct {
		effect, resource, want string
	}{
		{"read", "sym:Foo", `"status":"ok","state_effect":"read","resource_id":"sym:Foo"}`},
		{"", "", `"status":"ok"}`},
	} {
		tools := &fakeTools{reply: func(string, json.RawMessage) (session.ToolReply, error) {
			return session.ToolReply{Text: "42", StateEffect: tc.effect, ResourceID: tc.resource}, nil
		}}
		c, _ := newCase(t, []string{callCalc, endTurn}, tools)
		if err := (Stage{}).Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		var call string
		for _, l := range sessionLines(c) {
			if l.Type == "tool_call" {
				call = string(l.JSON)
			}
		}
		if !strings.HasSuffix(call, tc.want) {
			t.Errorf("tool_call %s, want it to end %s", call, tc.want)
		}
	}
}

// agent.rs (capsule-runtime), a driver response with stop_reason "error":
// murmur traces the turn's inference (decision "text"), writes the result
// "error: <error>" and ends the session failed. (A driver that itself
// fails, murmur's other failing turn, has no counterpart: murmur-eval's
// HTTP failures are retried and then a case error, E-EVL-016.)
func TestMurmur_agent_stop_reason_error_ends_the_session_failed(t *testing.T) {
	c, _ := newCase(t, []string{`{"stop_reason":"error","error":"overloaded"}`}, &fakeTools{})
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if outcomeOf(c).ExitStatus != "failed" || outcomeOf(c).ResultText != "error: overloaded" {
		t.Errorf("outcome %q %q", outcomeOf(c).ExitStatus, outcomeOf(c).ResultText)
	}
	events := decodeLines(t, sessionLines(c))
	var types []string
	for _, e := range events {
		types = append(types, e["event_type"].(string))
	}
	if diff := cmp.Diff([]string{"session_start", "inference", "session_end"}, types); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if events[1]["decision"] != "text" || events[2]["exit_status"] != "failed" {
		t.Errorf("inference %v, session_end %v", events[1], events[2])
	}
}
