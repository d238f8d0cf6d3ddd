package pipeline

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// Observable is a stage result that can put its own calls under spans
// (Launch's session wraps its model and tools). The executor hands it the
// tracer once, before the first stage that runs after it is stored, when
// spans are on; the stages stay unaware of spans.
type Observable interface {
	Observe(tracer oteltrace.Tracer)
}

// SpanAttributer is a stage result with counters for the case's span (the
// session's turns and tokens).
type SpanAttributer interface {
	SpanAttributes() []attribute.KeyValue
}

// observeResults hands the tracer of ctx's span to the case's Observable
// results not yet observed. With spans off (no recording span in ctx)
// nothing is wrapped.
func observeResults(ctx context.Context, c *Case) {
	if len(c.results) == 0 || !oteltrace.SpanFromContext(ctx).IsRecording() {
		return
	}
	for name, r := range c.results {
		o, ok := r.(Observable)
		if !ok || c.observed[name] {
			continue
		}
		if c.observed == nil {
			c.observed = map[string]bool{}
		}
		c.observed[name] = true
		o.Observe(oteltrace.SpanFromContext(ctx).TracerProvider().Tracer(tracerName))
	}
}

// resultAttributes collects the span attributes of the case's results, in
// the order they were stored.
func resultAttributes(c *Case) []attribute.KeyValue {
	var out []attribute.KeyValue
	for _, name := range c.stored {
		if a, ok := c.results[name].(SpanAttributer); ok {
			out = append(out, a.SpanAttributes()...)
		}
	}
	return out
}
