package session

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// fakeModel answers each Complete with the next of its answers.
type fakeModel struct {
	answers []*inference.Response
	err     error
}

func (m *fakeModel) Complete(context.Context, *inference.Request, inference.Observer) (*inference.Response, error) {
	if m.err != nil {
		return nil, m.err
	}
	r := m.answers[0]
	m.answers = m.answers[1:]
	return r, nil
}

// fakeTools replies to every call with reply.
type fakeTools struct{ reply ToolReply }

func (fakeTools) Inventory() []inference.Tool { return nil }
func (f fakeTools) Call(context.Context, string, json.RawMessage) (ToolReply, error) {
	return f.reply, nil
}

func toolCall(id, name string) inference.Block {
	return inference.Block{Type: "tool_call", ID: id, Name: name, Input: json.RawMessage(`{}`)}
}

type spanView struct {
	Name  string
	Kind  oteltrace.SpanKind
	Attrs map[string]any
}

func observed(t *testing.T, ses *Session, run func(context.Context, *Session)) []spanView {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ses.Observe(tp.Tracer("test"))
	run(context.Background(), ses)
	var out []spanView
	for _, s := range rec.Ended() {
		v := spanView{Name: s.Name(), Kind: s.SpanKind(), Attrs: map[string]any{}}
		for _, kv := range s.Attributes() {
			v.Attrs[string(kv.Key)] = kv.Value.AsInterface()
		}
		out = append(out, v)
	}
	return out
}

// TestObserveGenAISpans: a model call is a CLIENT span "chat {model}" and
// a tool call an INTERNAL span "execute_tool {name}" with the GenAI
// attributes, murmur_eval.* kept beside them; each tool span takes the id
// of the model's call of that tool, in the answer's order.
func TestObserveGenAISpans(t *testing.T) {
	model := &fakeModel{answers: []*inference.Response{{
		StopReason: "tool_call",
		Blocks:     []inference.Block{toolCall("call_1", "calc"), toolCall("call_2", "notes"), toolCall("call_3", "calc")},
		Usage:      &inference.Usage{InputTokens: 40, OutputTokens: 7},
	}}}
	ses := &Session{Model: model, Tools: fakeTools{}, Config: LoopConfig{Model: "claude-sonnet-4-5", MaxTokens: 1024,
		Provider: "anthropic", Endpoint: "https://api.anthropic.com"}}
	got := observed(t, ses, func(ctx context.Context, s *Session) {
		if _, err := s.Model.Complete(ctx, &inference.Request{}, inference.NopObserver{}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"calc", "calc", "notes", "shell"} {
			if _, err := s.Tools.Call(ctx, name, json.RawMessage(`{}`)); err != nil {
				t.Fatal(err)
			}
		}
	})
	tool := func(name, id string) spanView {
		a := map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "function",
			"murmur_eval.tool": name, "murmur_eval.tool_error": false}
		if id != "" {
			a["gen_ai.tool.call.id"] = id
		}
		return spanView{Name: "execute_tool " + name, Kind: oteltrace.SpanKindInternal, Attrs: a}
	}
	want := []spanView{
		{Name: "chat claude-sonnet-4-5", Kind: oteltrace.SpanKindClient, Attrs: map[string]any{
			"gen_ai.operation.name": "chat", "gen_ai.request.model": "claude-sonnet-4-5", "gen_ai.provider.name": "anthropic",
			"gen_ai.request.max_tokens": int64(1024), "server.address": "api.anthropic.com", "server.port": int64(443),
			"gen_ai.response.finish_reasons": []string{"tool_call"}, "gen_ai.usage.input_tokens": int64(40),
			"gen_ai.usage.output_tokens": int64(7), "murmur_eval.stop_reason": "tool_call"}},
		tool("calc", "call_1"), tool("calc", "call_3"), tool("notes", "call_2"), tool("shell", ""),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

// TestObserveGenAIErrors: a failed model call and a tool's error reply
// carry error.type: the failure's code, or tool_error without one.
func TestObserveGenAIErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply ToolReply
		want  string
	}{
		{"coded", ToolReply{IsError: true, Code: errcode.ToolNotProvided}, errcode.ToolNotProvided},
		{"uncoded", ToolReply{IsError: true}, "tool_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			modelErr := errcode.New(errcode.ReplayMissing, "no recording")
			ses := &Session{Model: &fakeModel{err: modelErr}, Tools: fakeTools{reply: tt.reply}, Config: LoopConfig{Model: "m"}}
			got := observed(t, ses, func(ctx context.Context, s *Session) {
				_, _ = s.Model.Complete(ctx, &inference.Request{}, inference.NopObserver{})
				_, _ = s.Tools.Call(ctx, "calc", nil)
			})
			if len(got) != 2 {
				t.Fatalf("%d spans, want 2", len(got))
			}
			if e := got[0].Attrs["error.type"]; e != errcode.ReplayMissing {
				t.Errorf("chat span error.type %v, want %s", e, errcode.ReplayMissing)
			}
			if e := got[1].Attrs["error.type"]; e != tt.want {
				t.Errorf("tool span error.type %v, want %s", e, tt.want)
			}
		})
	}
}

// TestObserveModelErrorAnswer: a model's stop_reason "error" answer is an
// error span (error.type _OTHER, the provider's message as its status).
func TestObserveModelErrorAnswer(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ses := &Session{Model: &fakeModel{answers: []*inference.Response{{StopReason: inference.StopError, Error: "overloaded_error: Overloaded"}}},
		Config: LoopConfig{Model: "m"}}
	ses.Observe(tp.Tracer("test"))
	if _, err := ses.Model.Complete(context.Background(), &inference.Request{}, inference.NopObserver{}); err != nil {
		t.Fatal(err)
	}
	s := rec.Ended()[0]
	var errType string
	for _, kv := range s.Attributes() {
		if kv.Key == "error.type" {
			errType = kv.Value.AsString()
		}
	}
	if st := s.Status(); errType != "_OTHER" || st.Code.String() != "Error" || st.Description != "overloaded_error: Overloaded" {
		t.Errorf("error.type %q, status %v %q; want _OTHER, Error, the provider's message", errType, st.Code, st.Description)
	}
}
