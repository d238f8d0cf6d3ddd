package report

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/murmur-nexus/murmur-eval/scoring"
)

// TestReportSpanEvents: each score becomes a gen_ai.evaluation.result
// event with the scorer's name, value, pass or fail and reason.
func TestReportSpanEvents(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	_, span := tp.Tracer("test").Start(context.Background(), "case")
	rep := &Report{Scores: []scoring.Score{
		{Name: "exit_ok", Type: "exit_ok", Pass: true, Value: 1, Reason: "ended normally"},
		{Name: "tools", Type: "tool_sequence", Pass: false, Value: 0.5, Reason: "1 of 2 tools called"},
	}}
	rep.AddSpanEvents(span)
	span.End()
	type ev struct {
		Name                 string
		Eval, Label, Explain string
		Value                float64
	}
	var got []ev
	for _, e := range rec.Ended()[0].Events() {
		v := ev{Name: e.Name}
		for _, kv := range e.Attributes {
			switch kv.Key {
			case "gen_ai.evaluation.name":
				v.Eval = kv.Value.AsString()
			case "gen_ai.evaluation.score.label":
				v.Label = kv.Value.AsString()
			case "gen_ai.evaluation.explanation":
				v.Explain = kv.Value.AsString()
			case "gen_ai.evaluation.score.value":
				v.Value = kv.Value.AsFloat64()
			}
		}
		got = append(got, v)
	}
	want := []ev{
		{"gen_ai.evaluation.result", "exit_ok", "pass", "ended normally", 1},
		{"gen_ai.evaluation.result", "tools", "fail", "1 of 2 tools called", 0.5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
