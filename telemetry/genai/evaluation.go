package genai

import (
	"unicode/utf8"

	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// EvaluationEvent is the event name of one score.
const EvaluationEvent = "gen_ai.evaluation.result"

// MaxExplanation bounds gen_ai.evaluation.explanation: a check command's
// reason may quote pages of output, and every event travels in the span.
const MaxExplanation = 1024

// Evaluation is one score of a case.
type Evaluation struct {
	Name   string  // the scorer's name: gen_ai.evaluation.name
	Value  float64 // in [0, 1]: gen_ai.evaluation.score.value
	Pass   bool    // gen_ai.evaluation.score.label "pass" or "fail"
	Reason string  // gen_ai.evaluation.explanation, cut at MaxExplanation bytes
}

// AddEvaluation adds e to span as a gen_ai.evaluation.result event.
func AddEvaluation(span trace.Span, e Evaluation) {
	label := "fail"
	if e.Pass {
		label = "pass"
	}
	span.AddEvent(EvaluationEvent, trace.WithAttributes(
		semconv.GenAIEvaluationName(e.Name),
		semconv.GenAIEvaluationScoreValue(e.Value),
		semconv.GenAIEvaluationScoreLabel(label),
		semconv.GenAIEvaluationExplanation(Cut(e.Reason, MaxExplanation)),
	))
}

// Cut returns s cut to at most n bytes on a rune boundary, with "…" at the
// end (inside the n bytes) when anything was cut.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const more = "…"
	end := max(n-len(more), 0)
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + more
}
