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
)

// Observe wraps the session's model and tools so each inference and tool
// call gets a span from tracer (pipeline.Observable): the executor calls it
// once spans are on, and the stages stay unaware of spans.
func (s *Session) Observe(tracer oteltrace.Tracer) {
	if s.Model != nil {
		s.Model = tracedModel{next: s.Model, tracer: tracer, model: s.Config.Model}
	}
	if s.Tools != nil {
		s.Tools = tracedTools{next: s.Tools, tracer: tracer}
	}
}

// tracedModel is a Provider with a span per Complete.
type tracedModel struct {
	next   inference.Provider
	tracer oteltrace.Tracer
	model  string
}

func (m tracedModel) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	ctx, span := m.tracer.Start(ctx, "inference", oteltrace.WithAttributes(attribute.String("gen_ai.request.model", m.model)))
	defer span.End()
	resp, err := m.next.Complete(ctx, req, obs)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, errcode.Code(err))
		return resp, err
	}
	if resp != nil {
		span.SetAttributes(attribute.String("murmur_eval.stop_reason", resp.StopReason))
		if u := resp.Usage; u != nil {
			span.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
				attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens))
		}
	}
	return resp, err
}

// tracedTools is a Toolbox with a span per Call.
type tracedTools struct {
	next   Toolbox
	tracer oteltrace.Tracer
}

func (t tracedTools) Inventory() []inference.Tool { return t.next.Inventory() }

func (t tracedTools) Call(ctx context.Context, name string, input json.RawMessage) (ToolReply, error) {
	ctx, span := t.tracer.Start(ctx, "tool "+name, oteltrace.WithAttributes(attribute.String("murmur_eval.tool", name)))
	defer span.End()
	reply, err := t.next.Call(ctx, name, input)
	span.SetAttributes(attribute.Bool("murmur_eval.tool_error", reply.IsError))
	if reply.Code != "" {
		span.SetAttributes(attribute.String("murmur_eval.code", reply.Code))
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, errcode.Code(err))
	} else if reply.IsError {
		span.SetStatus(codes.Error, cmp.Or(reply.Code, "tool error"))
	}
	return reply, err
}
