package pipeline

import oteltrace "go.opentelemetry.io/otel/trace"

// SpanEventer is a stage result with events for the case's span (Report's
// scores, one gen_ai.evaluation.result event each). The executor calls it
// once, as the case's span ends, when spans are on.
type SpanEventer interface {
	AddSpanEvents(span oteltrace.Span)
}

// addResultEvents adds the events of the case's results to span, in the
// order the results were stored; nothing when span records nothing (spans
// off), so no event is built to be dropped.
func addResultEvents(span oteltrace.Span, c *Case) {
	if !span.IsRecording() {
		return
	}
	for _, name := range c.stored {
		if e, ok := c.results[name].(SpanEventer); ok {
			e.AddSpanEvents(span)
		}
	}
}
