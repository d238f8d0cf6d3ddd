package pipeline

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// session is a fake Launch result: it counts its calls under spans of the
// tracer the executor hands it.
type session struct {
	tracer oteltrace.Tracer
	calls  int
}

func (s *session) Observe(t oteltrace.Tracer) { s.tracer = t }

func (s *session) SpanAttributes() []attribute.KeyValue {
	return []attribute.KeyValue{attribute.Int("murmur_eval.turns", s.calls)}
}

func (s *session) call(ctx context.Context, name string) {
	s.calls++
	if s.tracer != nil {
		_, span := s.tracer.Start(ctx, name)
		span.End()
	}
}

var sessionKey = NewKey[*session]("launch")

// TestInferenceAndToolSpansUnderLoop: a result that is Observable (the
// session Launch opens) is handed the tracer once, so its calls get spans
// under the stage that makes them (Loop), and its span attributes go on
// the case's span.
func TestInferenceAndToolSpansUnderLoop(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	g := sevenStages(t, map[string]func(context.Context, *Case) error{
		"launch": func(_ context.Context, c *Case) error {
			Store(c, sessionKey, &session{})
			return nil
		},
		"loop": func(ctx context.Context, c *Case) error {
			s, err := ResultOf(c, sessionKey)
			if err != nil {
				return err
			}
			for range 2 {
				s.call(ctx, "inference")
			}
			s.call(ctx, "tool calc")
			return nil
		},
	})
	r := &Runner{Graph: g, Workers: 1, Tracer: tp.Tracer("test"), NewCase: func(j Job) *Case { return &Case{ID: j.ID, Input: j.Input, Epoch: 1} }}
	if _, err := collect(t, r, context.Background(), jobs(1)); err != nil {
		t.Fatal(err)
	}
	var loopID string
	under := map[string]int{}
	parents := map[string]string{}
	var turns int64 = -1
	for _, s := range rec.Ended() {
		if s.Name() == "stage loop" {
			loopID = s.SpanContext().SpanID().String()
		}
		if s.Name() == "case" {
			for _, a := range s.Attributes() {
				if a.Key == "murmur_eval.turns" {
					turns = a.Value.AsInt64()
				}
			}
		}
		parents[s.Name()] = s.Parent().SpanID().String()
		under[s.Name()]++
	}
	if under["inference"] != 2 || under["tool calc"] != 1 {
		t.Fatalf("spans %v, want 2 inference and 1 tool calc", under)
	}
	if parents["inference"] != loopID || parents["tool calc"] != loopID {
		t.Errorf("inference and tool spans are not under the loop stage span")
	}
	if turns != 3 {
		t.Errorf("case span murmur_eval.turns = %d, want 3", turns)
	}
}
