package session

import (
	"cmp"
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/telemetry/genai"
)

// Observe wraps the session's model and tools so each inference and tool
// call gets a span from tracer (pipeline.Observable): the executor calls it
// once spans are on, and the stages stay unaware of spans. The spans are
// named and attributed as the OpenTelemetry GenAI conventions say (package
// genai), beside murmur-eval's own murmur_eval.* attributes.
func (s *Session) Observe(tracer oteltrace.Tracer) {
	calls := &pendingCalls{}
	if s.Model != nil {
		chat := genai.Chat{Model: s.Config.Model, Provider: s.Config.Provider, Endpoint: s.Config.Endpoint, MaxTokens: s.Config.MaxTokens}
		s.Model = tracedModel{next: s.Model, tracer: tracer, name: chat.SpanName(), attrs: chat.Attributes(), calls: calls}
	}
	if s.Tools != nil {
		s.Tools = tracedTools{next: s.Tools, tracer: tracer, calls: calls}
	}
}

// tracedModel is a Provider with a span per Complete.
type tracedModel struct {
	next   inference.Provider
	tracer oteltrace.Tracer
	name   string               // "chat {model}"
	attrs  []attribute.KeyValue // the same for every call: built once
	calls  *pendingCalls
}

func (m tracedModel) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	ctx, span := m.tracer.Start(ctx, m.name, oteltrace.WithSpanKind(oteltrace.SpanKindClient), oteltrace.WithAttributes(m.attrs...))
	defer span.End()
	resp, err := m.next.Complete(ctx, req, obs)
	m.calls.set(resp)
	if err != nil {
		span.RecordError(err)
		span.SetAttributes(genai.ErrorType(errcode.Code(err)))
		span.SetStatus(codes.Error, errcode.Code(err))
		return resp, err
	}
	if resp != nil {
		var usage *genai.Usage
		if u := resp.Usage; u != nil {
			usage = &genai.Usage{Input: u.InputTokens, Output: u.OutputTokens}
		}
		// One SetAttributes: each call may sort and dedupe the span's set.
		span.SetAttributes(append(genai.ChatResponse(resp.StopReason, usage), attribute.String("murmur_eval.stop_reason", resp.StopReason))...)
		if resp.StopReason == inference.StopError {
			// The provider answered with an error (the loop ends the
			// session failed): it carries no code of murmur-eval's.
			span.SetAttributes(genai.ErrorType(""))
			span.SetStatus(codes.Error, genai.Cut(cmp.Or(resp.Error, "driver returned error"), 256))
		}
	}
	return resp, err
}

// tracedTools is a Toolbox with a span per Call.
type tracedTools struct {
	next   Toolbox
	tracer oteltrace.Tracer
	calls  *pendingCalls
}

func (t tracedTools) Inventory() []inference.Tool { return t.next.Inventory() }

func (t tracedTools) Call(ctx context.Context, name string, input json.RawMessage) (ToolReply, error) {
	attrs := append(genai.ToolAttributes(name, t.calls.take(name)), attribute.String("murmur_eval.tool", name))
	ctx, span := t.tracer.Start(ctx, genai.ToolSpanName(name), oteltrace.WithSpanKind(oteltrace.SpanKindInternal), oteltrace.WithAttributes(attrs...))
	defer span.End()
	reply, err := t.next.Call(ctx, name, input)
	span.SetAttributes(attribute.Bool("murmur_eval.tool_error", reply.IsError))
	if reply.Code != "" {
		span.SetAttributes(attribute.String("murmur_eval.code", reply.Code))
	}
	if err != nil {
		span.RecordError(err)
		span.SetAttributes(genai.ErrorType(errcode.Code(err)))
		span.SetStatus(codes.Error, errcode.Code(err))
	} else if reply.IsError {
		span.SetAttributes(genai.ErrorType(cmp.Or(reply.Code, "tool_error")))
		span.SetStatus(codes.Error, cmp.Or(reply.Code, "tool error"))
	}
	return reply, err
}

// pendingCalls are the tool calls of the model's last answer not yet run,
// in the answer's order: the Toolbox is not told a call's id, so a tool
// span takes the id of the first pending call of its tool's name. A call
// the model did not ask for (none pending by that name) gets no id. One
// case's model and tools share it, on the case's goroutine.
type pendingCalls struct {
	ids, names []string
}

// set replaces the pending calls with the tool calls of resp.
func (p *pendingCalls) set(resp *inference.Response) {
	p.ids, p.names = p.ids[:0], p.names[:0]
	if resp == nil {
		return
	}
	for _, b := range resp.ToolCalls() {
		p.ids, p.names = append(p.ids, b.ID), append(p.names, b.Name)
	}
}

// take removes and returns the id of the first pending call of name, ""
// when there is none.
func (p *pendingCalls) take(name string) string {
	for i, n := range p.names {
		if n == name {
			id := p.ids[i]
			p.ids, p.names = append(p.ids[:i], p.ids[i+1:]...), append(p.names[:i], p.names[i+1:]...)
			return id
		}
	}
	return ""
}
