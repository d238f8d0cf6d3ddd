package loop

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/live"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// httpCase is a case whose model is src's provider for it, as Launch
// builds it: the manifest's inference block and the session folder.
func httpCase(t *testing.T, src inference.Source, id, task string, inf inference.Config) *pipeline.Case {
	t.Helper()
	dir := t.TempDir()
	model, err := src.ForCase(context.Background(), inference.Case{ID: id, Workdir: dir, Inference: inf})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Create(filepath.Join(dir, "trace.jsonl"), "ses_"+id, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return loopCase(dir, task, &session.Session{
		Trace: tr, Model: model, Tools: &fakeTools{},
		Config: session.LoopConfig{CapsuleName: "qs", CapsuleVersion: "0.1.0", Model: inf.Model, MaxTurns: 4, MaxTokens: 1024, Workdir: dir, Containment: "advisory", DeclaredContainment: "advisory"},
	})
}

func anthropicConfig(srv *apitest.Server) inference.Config {
	return inference.Config{Transport: "http", Endpoint: srv.URL, Model: "claude-sonnet-4-5", APIKey: "sk-ant-test", MaxTokens: 1024, DriverArtifact: "murmur-driver-anthropic"}
}

// quick retries: the backoff is short, Retry-After is still honoured.
func quick(o httpapi.Options) inference.Source {
	o.BaseDelay, o.MaxDelay = 10*time.Millisecond, 40*time.Millisecond
	return live.New(httpapi.NewClient(o))
}

// events decodes the trace lines without the clock-dependent fields.
func events(c *pipeline.Case) []map[string]any {
	// Task events carry fresh ids every run; the session's events are compared.
	var out []map[string]any
	for _, l := range sessionLines(c) {
		var m map[string]any
		_ = json.Unmarshal(l.JSON, &m)
		delete(m, "timestamp")
		delete(m, "duration_ms")
		delete(m, "session_id")
		if m["event_type"] == "session_start" {
			m = map[string]any{"event_type": "session_start", "model": m["model"], "tools_declared": m["tools_declared"]}
		}
		out = append(out, m)
	}
	return out
}

func TestLoopAgainstAnthropic(t *testing.T) {
	srv := apitest.New(t, func(r apitest.Request) apitest.Reply {
		if r.Call == 0 {
			return apitest.Reply{Body: apitest.AnthropicMessage("tool_use", 412, 37, apitest.AnthropicText("I'll compute it."), apitest.AnthropicToolUse("toolu_01A", "calc", `{"expression":"6*7"}`))}
		}
		return apitest.Reply{Body: apitest.AnthropicMessage("end_turn", 480, 9, apitest.AnthropicText("6*7 = 42"))}
	})
	c := httpCase(t, quick(httpapi.Options{}), "a1", "What is 6*7?", anthropicConfig(srv))
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if *outcomeOf(c) != (Outcome{ExitStatus: "ok", ResultText: "6*7 = 42", TaskExit: "ok"}) {
		t.Errorf("outcome = %+v", outcomeOf(c))
	}
	want := []map[string]any{
		{"event_type": "session_start", "model": "claude-sonnet-4-5", "tools_declared": []any{"calc"}},
		{"event_type": "inference", "turn": 0.0, "input_tokens": counted, "output_tokens": counted, "decision": "tool_call", "tool_name": "calc", "tokens_source": "cl100k_base",
			"provider_input_tokens": 412.0, "provider_output_tokens": 37.0},
		{"event_type": "tool_call", "turn": 0.0, "tool_name": "calc", "input": map[string]any{"expression": "6*7"}, "input_bytes": 20.0, "output_bytes": 2.0, "status": "ok"},
		{"event_type": "inference", "turn": 1.0, "input_tokens": counted, "output_tokens": counted, "decision": "end_turn", "tool_name": nil, "tokens_source": "cl100k_base",
			"provider_input_tokens": 480.0, "provider_output_tokens": 9.0},
		{"event_type": "session_end", "total_turns": 2.0, "total_input_tokens": counted, "total_output_tokens": counted, "total_tool_calls": 1.0, "total_shell_calls": 0.0, "exit_status": "ok"},
	}
	got := events(c)
	normalizeCounts(t, got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	h := reqs[0].Header
	if reqs[0].Path != "/v1/messages" || h.Get("x-api-key") != "sk-ant-test" || h.Get("anthropic-version") != "2023-06-01" || h.Get("Authorization") != "" {
		t.Errorf("first request: path %s headers %v", reqs[0].Path, h)
	}
	var second struct {
		Model     string            `json:"model"`
		MaxTokens int               `json:"max_tokens"`
		System    string            `json:"system"`
		Messages  []json.RawMessage `json:"messages"`
		Tools     []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(reqs[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	if second.Model != "claude-sonnet-4-5" || second.MaxTokens != 1024 || !strings.HasPrefix(second.System, "[Capsule]\nName: qs") || len(second.Tools) != 1 {
		t.Errorf("second request: model %q max_tokens %d system %.20q tools %d", second.Model, second.MaxTokens, second.System, len(second.Tools))
	}
	wantMsgs := []string{
		`{"role":"user","content":[{"type":"text","text":"What is 6*7?"}]}`,
		`{"role":"assistant","content":[{"type":"text","text":"I'll compute it."},{"type":"tool_use","id":"toolu_01A","name":"calc","input":{"expression":"6*7"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A","content":[{"type":"text","text":"42"}]}]}`,
	}
	var gotMsgs []string
	for _, m := range second.Messages {
		gotMsgs = append(gotMsgs, string(m))
	}
	if diff := cmp.Diff(wantMsgs, gotMsgs); diff != "" {
		t.Errorf("second request messages (-want +got):\n%s", diff)
	}
}

func TestLoopAgainstOpenAI(t *testing.T) {
	srv := apitest.New(t, func(r apitest.Request) apitest.Reply {
		if r.Call == 0 {
			return apitest.Reply{Body: apitest.OpenAICompletion("tool_calls", "", 300, 18, apitest.OpenAIToolCall("call_abc", "calc", `{"expression":"6*7"}`))}
		}
		return apitest.Reply{Body: apitest.OpenAICompletion("stop", "It is 42.", 350, 6)}
	})
	inf := inference.Config{Transport: "http", Endpoint: srv.URL + "/v1", Model: "gpt-4o", APIKey: "sk-test", MaxTokens: 1024, DriverArtifact: "house-driver", DriverConfig: json.RawMessage(`{"api":"openai"}`)}
	c := httpCase(t, quick(httpapi.Options{}), "o1", "What is 6*7?", inf)
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if *outcomeOf(c) != (Outcome{ExitStatus: "ok", ResultText: "It is 42.", TaskExit: "ok"}) {
		t.Errorf("outcome = %+v", outcomeOf(c))
	}
	ev := events(c)
	normalizeCounts(t, ev)
	if len(ev) != 5 || ev[1]["provider_input_tokens"] != 300.0 || ev[1]["provider_output_tokens"] != 18.0 || ev[1]["tool_name"] != "calc" || ev[3]["decision"] != "end_turn" ||
		ev[3]["provider_input_tokens"] != 350.0 || sessionOf(c).Trace.EvalCounts().ProviderInputTokens == nil || *sessionOf(c).Trace.EvalCounts().ProviderInputTokens != 650 {
		t.Errorf("trace = %v", ev)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/v1/chat/completions" || reqs[0].Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("requests: %d, path %s, auth %q", len(reqs), reqs[0].Path, reqs[0].Header.Get("Authorization"))
	}
	var second struct {
		Messages []json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(reqs[1].Body, &second)
	if len(second.Messages) != 4 || !strings.Contains(string(second.Messages[0]), `"role":"system"`) ||
		string(second.Messages[2]) != `{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc","type":"function","function":{"name":"calc","arguments":"{\"expression\":\"6*7\"}"}}]}` ||
		string(second.Messages[3]) != `{"role":"tool","content":"42","tool_call_id":"call_abc"}` {
		t.Errorf("second request messages:\n%s", second.Messages)
	}
}

// TestLoopRetriesAreTraced: a 429 with Retry-After, a 500, a connection
// reset and a 529 before the first answer, then a slow second answer.
func TestLoopRetriesAreTraced(t *testing.T) {
	srv := apitest.New(t, func(r apitest.Request) apitest.Reply {
		switch r.Call {
		case 0:
			return apitest.Reply{Status: 429, Header: map[string]string{"retry-after": "1"}, Body: apitest.AnthropicError("rate_limit_error", "rate limited")}
		case 1:
			return apitest.Reply{Status: 500, Body: apitest.AnthropicError("api_error", "Internal server error")}
		case 2:
			return apitest.Reply{Reset: true}
		case 3:
			return apitest.Reply{Status: 529, Body: apitest.AnthropicError("overloaded_error", "Overloaded")}
		case 4:
			return apitest.Reply{Body: apitest.AnthropicMessage("tool_use", 10, 5, apitest.AnthropicToolUse("toolu_1", "calc", `{}`))}
		}
		return apitest.Reply{Delay: 300 * time.Millisecond, Body: apitest.AnthropicMessage("end_turn", 12, 2, apitest.AnthropicText("42"))}
	})
	c := httpCase(t, quick(httpapi.Options{}), "r1", "compute", anthropicConfig(srv))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := (Stage{}).Run(ctx, c); err != nil {
		t.Fatal(err)
	}
	if outcomeOf(c).ExitStatus != "ok" || outcomeOf(c).ResultText != "42" {
		t.Errorf("outcome = %+v", outcomeOf(c))
	}
	ev := events(c)
	types := make([]string, len(ev))
	for i, e := range ev {
		types[i] = e["event_type"].(string)
	}
	wantTypes := []string{"session_start", "inference_retry", "inference_retry", "inference_retry", "inference_retry", "inference", "tool_call", "inference", "session_end"}
	if diff := cmp.Diff(wantTypes, types); diff != "" {
		t.Fatalf("event types (-want +got):\n%s", diff)
	}
	first := ev[1]
	if first["turn"] != 0.0 || first["attempt"] != 1.0 || first["status"] != 429.0 || first["reason"] != "rate_limited" ||
		first["retry_after_ms"] != 1000.0 || first["wait_ms"].(float64) < 1000 || first["error"] != "anthropic: HTTP 429: rate_limit_error: rate limited" {
		t.Errorf("429 retry event = %v", first)
	}
	for i, want := range []struct {
		status float64
		reason string
	}{{500, "server_error"}, {0, "connection"}, {529, "server_error"}} {
		e := ev[2+i]
		if e["attempt"] != float64(2+i) || e["status"] != want.status || e["reason"] != want.reason || e["retry_after_ms"] != nil {
			t.Errorf("retry event %d = %v, want status %v reason %s", 2+i, e, want.status, want.reason)
		}
	}
	if n := sessionOf(c).Trace.EvalCounts().Retries; n != 4 {
		t.Errorf("EvalCounts().Retries = %d, want 4", n)
	}
	if tot, ec := sessionOf(c).Trace.Totals(), sessionOf(c).Trace.EvalCounts(); tot.TotalTurns != 2 || ec.ProviderInputTokens == nil || *ec.ProviderInputTokens != 22 {
		t.Errorf("retries changed the totals: %+v, provider input %v", tot, ec.ProviderInputTokens)
	}
}

// TestLoopAuthFailureFailsFast: a 401 is a harness error (E-EVL-014, the
// case in status error naming HTTP 401 and the provider's message), never
// a model failure: one request, no retry, no inference event.
func TestLoopAuthFailureFailsFast(t *testing.T) {
	srv := apitest.New(t, func(apitest.Request) apitest.Reply {
		return apitest.Reply{Status: 401, Body: apitest.AnthropicError("authentication_error", "invalid x-api-key")}
	})
	c := httpCase(t, quick(httpapi.Options{}), "x", "hi", anthropicConfig(srv))
	err := (Stage{}).Run(context.Background(), c)
	if !errcode.Is(err, errcode.ProviderAuth) || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "invalid x-api-key") {
		t.Fatalf("Run = %v (%s), want %s naming HTTP 401 and the provider's message", err, errcode.Code(err), errcode.ProviderAuth)
	}
	if out := outcomeOf(c); out.ExitStatus == "failed" {
		t.Errorf("outcome %+v: a 401 ended the session failed", *out)
	}
	if n := len(srv.Requests()); n != 1 || sessionOf(c).Trace.EvalCounts().Retries != 0 {
		t.Errorf("%d requests, %d retries; an auth failure is not retried", n, sessionOf(c).Trace.EvalCounts().Retries)
	}
	for _, typ := range eventTypes(c) {
		if typ == "inference" {
			t.Errorf("trace %v has an inference event; murmur's loop writes none for a failed driver turn", eventTypes(c))
		}
	}
}

func TestLoopSlowResponsePastTheCaseBudget(t *testing.T) {
	srv := apitest.New(t, func(apitest.Request) apitest.Reply {
		return apitest.Reply{Delay: 5 * time.Second, Body: apitest.AnthropicMessage("end_turn", 1, 1)}
	})
	c := httpCase(t, quick(httpapi.Options{}), "slow", "hi", anthropicConfig(srv))
	ctx, cancel := context.WithTimeoutCause(context.Background(), 200*time.Millisecond, pipeline.ErrCaseTimeout)
	defer cancel()
	start := time.Now()
	err := Stage{}.Run(ctx, c)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("Run = %v after %s, want the case's deadline", err, time.Since(start))
	}
	c.Stages = []pipeline.StageResult{{Stage: Name, Outcome: pipeline.Failed, Err: err}}
	c.EndCause = context.Cause(ctx)
	if v := pipeline.Judge(c); v.Status != pipeline.StatusTimeout {
		t.Errorf("Judge = %+v, want timeout", v)
	}
}
