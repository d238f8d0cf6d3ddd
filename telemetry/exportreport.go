package telemetry

import (
	"context"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// reportingExporter keeps an export's failures for murmur-eval to report
// once, in its own words, at the end of the run, instead of the SDK's log
// line per failed batch: it tells the batcher every export succeeded.
type reportingExporter struct {
	sdktrace.SpanExporter
	mu      sync.Mutex
	first   error
	failed  int // spans not exported
	batches int // batches that failed
}

// ExportSpans exports spans and records a failure.
func (e *reportingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := e.SpanExporter.ExportSpans(ctx, spans); err != nil {
		e.mu.Lock()
		if e.first == nil {
			e.first = err
		}
		e.failed += len(spans)
		e.batches++
		e.mu.Unlock()
	}
	return nil
}

// failures returns how many spans were lost and the first failure.
func (e *reportingExporter) failures() (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failed, e.first
}
