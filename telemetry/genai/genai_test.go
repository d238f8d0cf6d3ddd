package genai

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func asMap(kvs []attribute.KeyValue) map[string]any {
	out := map[string]any{}
	for _, kv := range kvs {
		out[string(kv.Key)] = kv.Value.AsInterface()
	}
	return out
}

// TestChat: a model call span is "chat {model}" with the operation, the
// model, the provider, max_tokens and the endpoint's host and port (the
// scheme's default when the URL names none).
func TestChat(t *testing.T) {
	tests := []struct {
		name     string
		chat     Chat
		wantName string
		want     map[string]any
	}{
		{"anthropic default port", Chat{Model: "claude-sonnet-4-5", Provider: "anthropic", Endpoint: "https://api.anthropic.com", MaxTokens: 1024},
			"chat claude-sonnet-4-5", map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": "claude-sonnet-4-5",
				"gen_ai.provider.name": "anthropic", "gen_ai.request.max_tokens": int64(1024), "server.address": "api.anthropic.com", "server.port": int64(443)}},
		{"local port", Chat{Model: "m", Provider: "openai", Endpoint: "http://127.0.0.1:8080/v1"},
			"chat m", map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.provider.name": "openai",
				"server.address": "127.0.0.1", "server.port": int64(8080)}},
		{"plain http", Chat{Model: "m", Endpoint: "http://llm.internal"},
			"chat m", map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "server.address": "llm.internal", "server.port": int64(80)}},
		{"no endpoint, no model", Chat{},
			"chat", map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": ""}},
		{"not a URL", Chat{Model: "m", Endpoint: "::bad"},
			"chat m", map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.chat.SpanName(); got != tt.wantName {
				t.Errorf("SpanName() = %q, want %q", got, tt.wantName)
			}
			if diff := cmp.Diff(tt.want, asMap(tt.chat.Attributes())); diff != "" {
				t.Errorf("Attributes() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResponseToolAgentAndErrors: the answer's finish reason and usage,
// a tool span's name and attributes, the agent's, and error.type.
func TestResponseToolAgentAndErrors(t *testing.T) {
	tests := []struct {
		name string
		got  []attribute.KeyValue
		want map[string]any
	}{
		{"answer with usage", ChatResponse("tool_call", &Usage{Input: 12, Output: 3}),
			map[string]any{"gen_ai.response.finish_reasons": []string{"tool_call"}, "gen_ai.usage.input_tokens": int64(12), "gen_ai.usage.output_tokens": int64(3)}},
		{"answer without usage", ChatResponse("end_turn", nil), map[string]any{"gen_ai.response.finish_reasons": []string{"end_turn"}}},
		{"tool with call id", ToolAttributes("calc", "toolu_1"),
			map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "calc", "gen_ai.tool.type": "function", "gen_ai.tool.call.id": "toolu_1"}},
		{"tool without call id", ToolAttributes("notes", ""),
			map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "notes", "gen_ai.tool.type": "function"}},
		{"agent", AgentAttributes("quickstart", "0.1.0"),
			map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "quickstart", "gen_ai.agent.version": "0.1.0"}},
		{"error with code", []attribute.KeyValue{ErrorType("E-PRV-003")}, map[string]any{"error.type": "E-PRV-003"}},
		{"error without code", []attribute.KeyValue{ErrorType("")}, map[string]any{"error.type": "_OTHER"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, asMap(tt.got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := ToolSpanName("calc"); got != "execute_tool calc" {
		t.Errorf("ToolSpanName(calc) = %q, want execute_tool calc", got)
	}
}

// TestAddEvaluation: each score is a gen_ai.evaluation.result event with
// its name, value, pass/fail label and its reason cut to 1 KiB.
func TestAddEvaluation(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	_, span := tp.Tracer("test").Start(context.Background(), "case")
	long := strings.Repeat("é", 2000) // 4000 bytes
	AddEvaluation(span, Evaluation{Name: "exit_ok", Value: 1, Pass: true, Reason: "session ended normally"})
	AddEvaluation(span, Evaluation{Name: "check", Value: 0, Pass: false, Reason: long})
	span.End()
	events := rec.Ended()[0].Events()
	if len(events) != 2 {
		t.Fatalf("%d events, want 2", len(events))
	}
	want := []map[string]any{
		{"gen_ai.evaluation.name": "exit_ok", "gen_ai.evaluation.score.value": 1.0, "gen_ai.evaluation.score.label": "pass",
			"gen_ai.evaluation.explanation": "session ended normally"},
		{"gen_ai.evaluation.name": "check", "gen_ai.evaluation.score.value": 0.0, "gen_ai.evaluation.score.label": "fail",
			"gen_ai.evaluation.explanation": Cut(long, MaxExplanation)},
	}
	for i, e := range events {
		if e.Name != "gen_ai.evaluation.result" {
			t.Errorf("event %d named %q, want gen_ai.evaluation.result", i, e.Name)
		}
		if diff := cmp.Diff(want[i], asMap(e.Attributes)); diff != "" {
			t.Errorf("event %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestCut: a cut string fits in n bytes, ends in "…" and stays valid UTF-8.
func TestCut(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"abcdefghij", 6, "abc…"},
		{"ééééé", 7, "éé…"}, // 4 bytes would split the third é
		{"abc", 2, "…"},
	}
	for _, tt := range tests {
		got := Cut(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if !utf8.ValidString(got) || (len(tt.in) > tt.n && len(got) > max(tt.n, len("…"))) {
			t.Errorf("Cut(%q, %d) = %q: %d bytes, valid %v", tt.in, tt.n, got, len(got), utf8.ValidString(got))
		}
	}
}
