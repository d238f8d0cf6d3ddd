package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"
	"golang.org/x/term"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/termtext"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/telemetry"
)

// startRunSpan starts the run's span, the parent of every case span; with
// telemetry off it is a no-op span.
func startRunSpan(ctx context.Context, tel *telemetry.Telemetry, runID string, o options, jobs int) (context.Context, oteltrace.Span) {
	return tel.Tracer().Start(ctx, "run", oteltrace.WithAttributes(
		attribute.String("murmur_eval.run_id", runID),
		attribute.String("murmur_eval.dataset", o.dataset),
		attribute.Int("murmur_eval.cases", jobs),
		attribute.Int("murmur_eval.epochs", o.batch.epochs),
		attribute.String("murmur_eval.shard", o.batch.shard.String()),
	))
}

// endRunSpan records the run's counts on its span and ends it.
func endRunSpan(span oteltrace.Span, s *reports.Summary) {
	span.SetAttributes(
		attribute.Int("murmur_eval.passed", s.Count(reports.StatusPassed)),
		attribute.Int("murmur_eval.failed", s.Count(reports.StatusFailed)),
		attribute.Int("murmur_eval.unscored", s.Unscored()),
	)
	if s.Unscored() > 0 {
		span.SetStatus(codes.Error, plural(s.Unscored(), "case")+" in error or timeout")
	}
	span.End()
}

// traceID is the run span's trace id, "" when spans are not exported.
func traceID(span oteltrace.Span) string {
	if sc := span.SpanContext(); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}

// shutdownTelemetry flushes the spans, bounded so an unreachable collector
// cannot hold the run's exit.
func shutdownTelemetry(tel *telemetry.Telemetry, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "murmur-eval: warning: %s\n", errcode.Format(err))
	}
}

// isTerminal reports whether w is a terminal, for --progress auto.
func isTerminal(w io.Writer) bool {
	f, ok := termtext.Raw(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
