package trace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixedClock ticks 5 ms per call from a fixed instant.
func fixedClock() func() time.Time {
	t := time.UnixMilli(1_700_000_000_000)
	return func() time.Time { t = t.Add(5 * time.Millisecond); return t }
}

func TestWriterWritesMurmurLinesAndTotals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	w, err := Create(path, "ses_1", fixedClock())
	if err != nil {
		t.Fatal(err)
	}
	name := "calc"
	steps := []error{
		w.SessionStart(SessionStart{CapsuleName: "qs", CapsuleVersion: "0.1.0", Model: "m", MaxTurns: 4, Capabilities: []string{}, ToolsDeclared: []string{"calc"}, ContainmentDeclared: "advisory", ContainmentAchieved: "advisory", EffectiveGrants: json.RawMessage(`{}`), SystemPromptSource: "none"}),
		w.Inference(Inference{Turn: 0, InputTokens: 10, OutputTokens: 2, Decision: "tool_call", ToolName: &name, TokensSource: "provider"}),
		w.ToolCall(ToolCall{Turn: 0, ToolName: "calc", Input: []byte(`{"expression":"1+1"}`), InputBytes: 20, OutputBytes: 1, DurationMS: 3, Status: "ok"}),
		w.Inference(Inference{Turn: 1, InputTokens: 12, OutputTokens: 3, Decision: "end_turn"}),
		w.SessionEnd("ok"),
		w.Close(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"event_type":"session_start","session_id":"ses_1","timestamp":1700000000010,"capsule_name":"qs","capsule_version":"0.1.0","model":"m","max_turns":4,"capabilities":[],"tools_declared":["calc"],"containment_declared":"advisory","containment_achieved":"advisory","workdir_exec":false,"effective_grants":{},"system_prompt_source":"none","system_prompt_sha256":null}`,
		`{"event_type":"inference","session_id":"ses_1","timestamp":1700000000015,"turn":0,"input_tokens":10,"output_tokens":2,"decision":"tool_call","tool_name":"calc","tokens_source":"provider"}`,
		`{"event_type":"tool_call","session_id":"ses_1","timestamp":1700000000020,"turn":0,"tool_name":"calc","input":{"expression":"1+1"},"input_bytes":20,"output_bytes":1,"duration_ms":3,"status":"ok"}`,
		`{"event_type":"inference","session_id":"ses_1","timestamp":1700000000025,"turn":1,"input_tokens":12,"output_tokens":3,"decision":"end_turn","tool_name":null}`,
		`{"event_type":"session_end","session_id":"ses_1","timestamp":1700000000030,"total_turns":2,"total_input_tokens":22,"total_output_tokens":5,"total_tool_calls":1,"total_shell_calls":0,"duration_ms":25,"exit_status":"ok"}`,
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trace.jsonl (-want +got):\n%s", diff)
	}
	lines := w.Lines()
	if len(lines) != 5 || *lines[2].Turn != 0 || lines[2].ToolName != "calc" || lines[0].Turn != nil || string(lines[4].JSON) != want[4] {
		t.Errorf("Lines() has %d lines or wrong turn/tool/JSON", len(lines))
	}
	if !w.Started() || !w.Ended() {
		t.Error("Started/Ended not set")
	}
}

func TestWriterWritesEvalEventsAndCountsThem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	w, err := Create(path, "ses_1", fixedClock())
	if err != nil {
		t.Fatal(err)
	}
	ra := int64(1000)
	steps := []error{
		w.InferenceRetry(InferenceRetry{Turn: 0, Attempt: 1, Status: 429, Reason: "rate_limited", WaitMS: 1000, RetryAfterMS: &ra, Error: "anthropic: HTTP 429"}),
		w.InferenceRetry(InferenceRetry{Turn: 0, Attempt: 2, Reason: "connection", WaitMS: 12, Error: "reset"}),
		w.ReplayDivergence(ReplayDivergence{Turn: 2, RecordedRequestSHA256: "aa", RequestSHA256: "bb"}),
		w.ReplayDivergence(ReplayDivergence{Turn: 3, RecordedRequestSHA256: "cc", RequestSHA256: "dd"}),
		w.Close(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	data, _ := os.ReadFile(path)
	want := []string{
		`{"event_type":"inference_retry","session_id":"ses_1","timestamp":1700000000010,"turn":0,"attempt":1,"status":429,"reason":"rate_limited","wait_ms":1000,"retry_after_ms":1000,"error":"anthropic: HTTP 429"}`,
		`{"event_type":"inference_retry","session_id":"ses_1","timestamp":1700000000015,"turn":0,"attempt":2,"status":0,"reason":"connection","wait_ms":12,"retry_after_ms":null,"error":"reset"}`,
		`{"event_type":"replay_divergence","session_id":"ses_1","timestamp":1700000000020,"turn":2,"recorded_request_sha256":"aa","request_sha256":"bb"}`,
		`{"event_type":"replay_divergence","session_id":"ses_1","timestamp":1700000000025,"turn":3,"recorded_request_sha256":"cc","request_sha256":"dd"}`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")); diff != "" {
		t.Errorf("trace.jsonl (-want +got):\n%s", diff)
	}
	c := w.EvalCounts()
	if c.Retries != 2 || c.Divergences != 2 || c.FirstDivergedTurn == nil || *c.FirstDivergedTurn != 2 {
		t.Errorf("EvalCounts = %+v", c)
	}
	if tot := w.Totals(); tot.TotalTurns != 0 || tot.TotalToolCalls != 0 {
		t.Errorf("murmur's totals moved: %+v", tot)
	}
}
