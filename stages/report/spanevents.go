package report

import (
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-nexus/murmur-eval/telemetry/genai"
)

// AddSpanEvents adds one gen_ai.evaluation.result event per score to the
// case's span, in scoring order (pipeline.SpanEventer): the scorer's name,
// its value, "pass" or "fail", and its reason cut at 1 KiB.
func (r *Report) AddSpanEvents(span oteltrace.Span) {
	for _, s := range r.Scores {
		genai.AddEvaluation(span, genai.Evaluation{Name: s.Name, Value: s.Value, Pass: s.Pass, Reason: s.Reason})
	}
}
