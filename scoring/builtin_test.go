package scoring

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Hand-written traces in murmur's trace.jsonl format (murmur-session.md §3).
const (
	// traceTypical is murmur's typical single-task http trace:
	// task_start, session_start, inference(0), tool_call, inference(1),
	// session_end, task_end.
	traceTypical = `{"event_type":"task_start","session_id":"ses_1","timestamp":1778161473000,"task_id":"t1","context_id":"c1","source":"task_md","message_parts_bytes":12}
{"event_type":"session_start","session_id":"ses_1","timestamp":1778161473001,"capsule_name":"demo","capsule_version":"0.1.0","model":"m","max_turns":10,"capabilities":[],"tools_declared":["calc"],"containment_declared":"advisory","containment_achieved":"advisory","workdir_exec":false,"effective_grants":{},"system_prompt_source":"none","system_prompt_sha256":null}
{"event_type":"inference","session_id":"ses_1","timestamp":1778161473100,"turn":0,"input_tokens":612,"output_tokens":48,"decision":"tool_call","tool_name":"calc"}
{"event_type":"tool_call","session_id":"ses_1","timestamp":1778161473200,"turn":0,"tool_name":"calc","input":{"expression":"6*7"},"input_bytes":22,"output_bytes":2,"duration_ms":9,"status":"ok"}
{"event_type":"inference","session_id":"ses_1","timestamp":1778161473700,"turn":1,"input_tokens":705,"output_tokens":12,"decision":"end_turn","tool_name":null}
{"event_type":"session_end","session_id":"ses_1","timestamp":1778161473790,"total_turns":2,"total_input_tokens":1317,"total_output_tokens":60,"total_tool_calls":1,"total_shell_calls":0,"duration_ms":790,"exit_status":"ok"}
{"event_type":"task_end","session_id":"ses_1","timestamp":1778161473791,"task_id":"t1","exit_status":"ok","duration_ms":791,"turns":2,"input_tokens":1317,"output_tokens":60,"tool_calls":1,"shell_calls":0,"reopen_count":0}
`
	// traceMaxTurns ran out of turns: four inferences, all tool calls.
	traceMaxTurns = `{"event_type":"session_start","session_id":"ses_2","timestamp":1,"max_turns":4}
{"event_type":"inference","session_id":"ses_2","timestamp":2,"turn":0,"input_tokens":100,"output_tokens":10,"decision":"tool_call","tool_name":"calc"}
{"event_type":"tool_call","session_id":"ses_2","timestamp":3,"turn":0,"tool_name":"calc","status":"ok"}
{"event_type":"inference","session_id":"ses_2","timestamp":4,"turn":1,"input_tokens":200,"output_tokens":10,"decision":"tool_call","tool_name":"calc"}
{"event_type":"tool_call","session_id":"ses_2","timestamp":5,"turn":1,"tool_name":"calc","status":"error"}
{"event_type":"inference","session_id":"ses_2","timestamp":6,"turn":2,"input_tokens":300,"output_tokens":10,"decision":"tool_call","tool_name":"notes"}
{"event_type":"tool_call","session_id":"ses_2","timestamp":7,"turn":2,"tool_name":"notes","status":"ok"}
{"event_type":"inference","session_id":"ses_2","timestamp":8,"turn":3,"input_tokens":400,"output_tokens":10,"decision":"tool_call","tool_name":"calc"}
{"event_type":"tool_call","session_id":"ses_2","timestamp":9,"turn":3,"tool_name":"calc","status":"ok"}
{"event_type":"session_end","session_id":"ses_2","timestamp":10,"total_turns":4,"total_input_tokens":1000,"total_output_tokens":40,"total_tool_calls":4,"total_shell_calls":0,"duration_ms":9,"exit_status":"max_turns_reached"}
`
	// traceFallback is murmur's error exit after session_start: task_end
	// failed, a hook dispatch error, then the fallback session_end(failed).
	traceFallback = `{"event_type":"task_start","session_id":"ses_3","timestamp":1,"task_id":"t","context_id":"c","source":"task_md","message_parts_bytes":1}
{"event_type":"session_start","session_id":"ses_3","timestamp":2,"max_turns":10}
{"event_type":"inference","session_id":"ses_3","timestamp":3,"turn":0,"input_tokens":50,"output_tokens":0,"decision":"text","tool_name":null}
{"event_type":"task_end","session_id":"ses_3","timestamp":4,"task_id":"t","exit_status":"failed","duration_ms":3,"turns":1,"input_tokens":50,"output_tokens":0,"tool_calls":0,"shell_calls":0}
{"event_type":"hook_dispatch_error","session_id":"ses_3","timestamp":5,"hook_name":"h","event":"on-task-end","arm":"error"}
{"event_type":"session_end","session_id":"ses_3","timestamp":6,"total_turns":1,"total_input_tokens":50,"total_output_tokens":0,"total_tool_calls":0,"total_shell_calls":0,"duration_ms":5,"exit_status":"failed"}
`
	// traceReopened has two attempts; totals are cumulative and the last
	// session_end decides. A skill call and a shell tool are observed too.
	traceReopened = `{"event_type":"session_start","session_id":"ses_4","timestamp":1,"max_turns":3}
{"event_type":"inference","session_id":"ses_4","timestamp":2,"turn":0,"input_tokens":10,"output_tokens":5,"decision":"tool_call","tool_name":"search"}
{"event_type":"skill_call","session_id":"ses_4","timestamp":3,"turn":0,"skill_name":"style-guide","output_bytes":10,"duration_ms":1,"status":"ok"}
{"event_type":"tool_call","session_id":"ses_4","timestamp":4,"turn":0,"tool_name":"search","status":"ok"}
{"event_type":"session_end","session_id":"ses_4","timestamp":5,"total_turns":1,"total_input_tokens":10,"total_output_tokens":5,"total_tool_calls":1,"total_shell_calls":0,"duration_ms":4,"exit_status":"failed"}
{"event_type":"task_reopened","session_id":"ses_4","timestamp":6,"task_id":"t","hook_name":"judge","reason":"try again","reopen_number":1}
{"event_type":"session_start","session_id":"ses_4","timestamp":7,"max_turns":3}
{"event_type":"inference","session_id":"ses_4","timestamp":8,"turn":1,"input_tokens":20,"output_tokens":5,"decision":"tool_call","tool_name":"bash"}
{"event_type":"tool_call","session_id":"ses_4","timestamp":9,"turn":1,"tool_name":"bash","status":"ok"}
{"event_type":"shell","session_id":"ses_4","timestamp":10,"turn":1,"binary":"git","command":"git status","exit_code":0,"stdout_bytes":3,"stderr_bytes":0,"duration_ms":2}
{"event_type":"inference","session_id":"ses_4","timestamp":11,"turn":2,"input_tokens":30,"output_tokens":7,"decision":"end_turn","tool_name":null}
{"event_type":"session_end","session_id":"ses_4","timestamp":12,"total_turns":3,"total_input_tokens":60,"total_output_tokens":17,"total_tool_calls":2,"total_shell_calls":1,"duration_ms":11,"exit_status":"ok"}
`
)

func mustTrace(t *testing.T, text string) TraceSummary {
	t.Helper()
	s, err := ParseTrace(strings.NewReader(text))
	if err != nil {
		t.Fatalf("ParseTrace: %v", err)
	}
	return s
}

func TestParseTrace(t *testing.T) {
	tests := []struct {
		name  string
		trace string
		want  TraceSummary
	}{
		{"typical", traceTypical, TraceSummary{Ended: true, ExitStatus: "ok", TotalTurns: 2, TotalInputTokens: 1317, TotalOutputTokens: 60, EndedAt: 1778161473790, TaskExitStatus: "ok", Observed: []string{"calc"}}},
		{"max turns", traceMaxTurns, TraceSummary{Ended: true, ExitStatus: "max_turns_reached", TotalTurns: 4, TotalInputTokens: 1000, TotalOutputTokens: 40, EndedAt: 10, Observed: []string{"calc", "calc", "notes", "calc"}}},
		{"fallback", traceFallback, TraceSummary{Ended: true, ExitStatus: "failed", TotalTurns: 1, TotalInputTokens: 50, EndedAt: 6, TaskExitStatus: "failed"}},
		{"reopened", traceReopened, TraceSummary{Ended: true, ExitStatus: "ok", TotalTurns: 3, TotalInputTokens: 60, TotalOutputTokens: 17, EndedAt: 12, Observed: []string{"style-guide", "search", "bash"}}},
		{"no session_end", "{\"event_type\":\"task_start\"}\n\n", TraceSummary{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, mustTrace(t, tt.trace)); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTraceErrors(t *testing.T) {
	for _, text := range []string{
		"not json\n",
		`{"session_id":"x"}`,
		`[1,2]`,
		`null`,
		"{\"event_type\":\"session_start\"}\n{\"event_type\":\"session_end\",\"total_turns\":1}\n",
		`{"event_type":"tool_call","turn":0}`,
		`{"event_type":"session_end","exit_status":"ok","total_turns":"two"}`,
	} {
		if _, err := ParseTrace(strings.NewReader(text)); err == nil {
			t.Errorf("ParseTrace(%q) = nil error, want one", text)
		}
	}
	_, err := ParseTrace(strings.NewReader("{\"event_type\":\"x\"}\nbroken\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "trace.jsonl:2:") {
		t.Errorf("error %v, want it to name trace.jsonl:2", err)
	}
}

func TestBuiltinScorers(t *testing.T) {
	typical, maxTurns, fallback, reopened := mustTrace(t, traceTypical), mustTrace(t, traceMaxTurns), mustTrace(t, traceFallback), mustTrace(t, traceReopened)
	exhausted := mustTrace(t, traceReopened+`{"event_type":"task_end","session_id":"ses_4","timestamp":13,"task_id":"t","exit_status":"reopen_budget_exhausted","duration_ms":12,"turns":3,"input_tokens":60,"output_tokens":17,"tool_calls":2,"shell_calls":1,"reopen_count":1}
`)
	tests := []struct {
		name  string
		spec  ScorerSpec
		trace TraceSummary
		want  Score
	}{
		// murmur's documented example: turn_limit passes with turns=2 max=5.
		{"murmur example turn_limit", ScorerSpec{Type: TypeMaxTurns, Name: "turn_limit", Max: 5}, typical,
			Score{"turn_limit", TypeMaxTurns, true, 1, "turns=2 max=5", false, false, nil}},
		{"murmur example success_check", ScorerSpec{Type: TypeExitOK, Name: "success_check"}, typical,
			Score{"success_check", TypeExitOK, true, 1, "exit_status=ok", false, false, nil}},
		{"exit_ok fails on max_turns_reached (murmur's hook would pass it)", ScorerSpec{Type: TypeExitOK, Name: "exit_ok"}, maxTurns,
			Score{"exit_ok", TypeExitOK, false, 0, "exit_status=max_turns_reached", false, false, nil}},
		{"exit_ok fails on the fallback session_end", ScorerSpec{Type: TypeExitOK, Name: "exit_ok"}, fallback,
			Score{"exit_ok", TypeExitOK, false, 0, "exit_status=failed", false, false, nil}},
		{"exit_ok reads the last attempt", ScorerSpec{Type: TypeExitOK, Name: "exit_ok"}, reopened,
			Score{"exit_ok", TypeExitOK, true, 1, "exit_status=ok", false, false, nil}},
		{"exit_ok fails a task whose reopen budget ran out", ScorerSpec{Type: TypeExitOK, Name: "exit_ok"}, exhausted,
			Score{"exit_ok", TypeExitOK, false, 0, "exit_status=reopen_budget_exhausted", false, false, nil}},
		{"max_turns at the limit passes", ScorerSpec{Type: TypeMaxTurns, Name: "t", Max: 4}, maxTurns,
			Score{"t", TypeMaxTurns, true, 1, "turns=4 max=4", false, false, nil}},
		{"max_turns over the limit fails", ScorerSpec{Type: TypeMaxTurns, Name: "t", Max: 3}, maxTurns,
			Score{"t", TypeMaxTurns, false, 0, "turns=4 max=3", false, false, nil}},
		{"max_turns counts every attempt", ScorerSpec{Type: TypeMaxTurns, Name: "t", Max: 2}, reopened,
			Score{"t", TypeMaxTurns, false, 0, "turns=3 max=2", false, false, nil}},
		{"max_tokens sums input and output", ScorerSpec{Type: TypeMaxTokens, Name: "budget", Max: 1377}, typical,
			Score{"budget", TypeMaxTokens, true, 1, "tokens=1377 max=1377", false, false, nil}},
		{"max_tokens over", ScorerSpec{Type: TypeMaxTokens, Name: "budget", Max: 1376}, typical,
			Score{"budget", TypeMaxTokens, false, 0, "tokens=1377 max=1376", false, false, nil}},
		{"tool_sequence in order", ScorerSpec{Type: TypeToolSequence, Name: "seq", Expected: []string{"calc", "notes"}}, maxTurns,
			Score{"seq", TypeToolSequence, true, 1, `observed=["calc", "calc", "notes", "calc"] expected=["calc", "notes"]`, false, false, nil}},
		{"tool_sequence partial is fractional", ScorerSpec{Type: TypeToolSequence, Name: "seq", Expected: []string{"calc", "notes", "search", "calc"}}, maxTurns,
			Score{"seq", TypeToolSequence, false, 0.5, `observed=["calc", "calc", "notes", "calc"] expected=["calc", "notes", "search", "calc"]`, false, false, nil}},
		{"tool_sequence greedy never backtracks", ScorerSpec{Type: TypeToolSequence, Name: "seq", Expected: []string{"notes", "calc", "calc"}}, maxTurns,
			Score{"seq", TypeToolSequence, false, 2.0 / 3, `observed=["calc", "calc", "notes", "calc"] expected=["notes", "calc", "calc"]`, false, false, nil}},
		{"tool_sequence sees skills", ScorerSpec{Type: TypeToolSequence, Name: "seq", Expected: []string{"style-guide", "bash"}}, reopened,
			Score{"seq", TypeToolSequence, true, 1, `observed=["style-guide", "search", "bash"] expected=["style-guide", "bash"]`, false, false, nil}},
		{"tool_sequence empty expectation passes", ScorerSpec{Type: TypeToolSequence, Name: "seq"}, fallback,
			Score{"seq", TypeToolSequence, true, 1, "observed=[] expected=[]", false, false, nil}},
		{"tool_sequence with no calls", ScorerSpec{Type: TypeToolSequence, Name: "seq", Expected: []string{"calc"}}, fallback,
			Score{"seq", TypeToolSequence, false, 0, `observed=[] expected=["calc"]`, false, false, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Builtin(tt.spec, tt.trace)
			if !ok {
				t.Fatalf("Builtin(%s) not scored", tt.spec.Type)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("score (-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := Builtin(ScorerSpec{Type: TypeLLMJudge, Name: "j"}, typical); ok {
		t.Errorf("llm_judge was scored, want it never scored (as murmur)")
	}
}

func TestOverall(t *testing.T) {
	pass, fail := Score{Pass: true}, Score{}
	for _, tt := range []struct {
		scores []Score
		want   string
	}{
		{nil, OverallNoScores},
		{[]Score{pass}, OverallPass},
		{[]Score{pass, fail}, OverallFail},
	} {
		if got := Overall(tt.scores); got != tt.want {
			t.Errorf("Overall(%v) = %q, want %q", tt.scores, got, tt.want)
		}
	}
}
