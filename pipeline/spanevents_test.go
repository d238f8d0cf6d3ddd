package pipeline

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// scored is a fake Report result with events for the case's span.
type scored struct{ names []string }

func (s scored) AddSpanEvents(span oteltrace.Span) {
	for _, n := range s.names {
		span.AddEvent(n)
	}
}

var scoredKey = NewKey[scored]("report")

// TestCaseSpanEvents: the events of a SpanEventer result (Report's scores)
// land on the case's span, not on its stage's, once, in order.
func TestCaseSpanEvents(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	g := sevenStages(t, map[string]func(context.Context, *Case) error{
		"report": func(_ context.Context, c *Case) error {
			Store(c, scoredKey, scored{names: []string{"first", "second"}})
			return nil
		},
	})
	r := &Runner{Graph: g, Workers: 1, Tracer: tp.Tracer("test"), NewCase: func(j Job) *Case { return &Case{ID: j.ID, Input: j.Input, Epoch: 1} }}
	if _, err := collect(t, r, context.Background(), jobs(1)); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, s := range rec.Ended() {
		for _, e := range s.Events() {
			got[s.Name()] = append(got[s.Name()], e.Name)
		}
	}
	if diff := cmp.Diff(map[string][]string{"case": {"first", "second"}}, got); diff != "" {
		t.Errorf("events by span (-want +got):\n%s", diff)
	}
}
