package telemetry

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Run is what the run's span records when it starts.
type Run struct {
	ID      string // the run's id
	Dataset string // the dataset's path
	Cases   int    // the (case, epoch) pairs this invocation runs
	Epochs  int
	Shard   string // --shard, "" for the whole dataset
}

// StartRun starts the run's span, the parent of every case span; with
// telemetry off it is a no-op span.
func (t *Telemetry) StartRun(ctx context.Context, r Run) (context.Context, trace.Span) {
	return t.Tracer().Start(ctx, "run", trace.WithAttributes(
		attribute.String("murmur_eval.run_id", r.ID),
		attribute.String("murmur_eval.dataset", r.Dataset),
		attribute.Int("murmur_eval.cases", r.Cases),
		attribute.Int("murmur_eval.epochs", r.Epochs),
		attribute.String("murmur_eval.shard", r.Shard),
	))
}

// EndRun records the run's counts on its span and ends it: an error
// status when cases ended in error or timeout (unscored).
func EndRun(span trace.Span, passed, failed, unscored int) {
	span.SetAttributes(
		attribute.Int("murmur_eval.passed", passed),
		attribute.Int("murmur_eval.failed", failed),
		attribute.Int("murmur_eval.unscored", unscored),
	)
	if unscored > 0 {
		noun := "cases"
		if unscored == 1 {
			noun = "case"
		}
		span.SetStatus(codes.Error, fmt.Sprintf("%d %s in error or timeout", unscored, noun))
	}
	span.End()
}

// TraceID is the span's trace id in hex, "" when it has none (telemetry
// off).
func TraceID(span trace.Span) string {
	if sc := span.SpanContext(); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}
