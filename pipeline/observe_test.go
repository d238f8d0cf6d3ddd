package pipeline

import (
	"context"
	"encoding/json"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/murmur-nexus/murmur-eval/inference"
)

type fakeModel struct{}

func (fakeModel) Complete(context.Context, *inference.Request, inference.Observer) (*inference.Response, error) {
	return &inference.Response{StopReason: "end_turn", Usage: &inference.Usage{InputTokens: 7, OutputTokens: 3}}, nil
}

type fakeTools struct{}

func (fakeTools) Inventory() []inference.Tool { return nil }
func (fakeTools) Call(context.Context, string, json.RawMessage) (ToolReply, error) {
	return ToolReply{Text: "42"}, nil
}

// TestInferenceAndToolSpansUnderLoop: the model and tools Launch opens get
// a span per call, under the Loop stage's span.
func TestInferenceAndToolSpansUnderLoop(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	g := sevenStages(t, map[string]func(context.Context, *Case) error{
		"launch": func(_ context.Context, c *Case) error {
			c.Session = &Session{Model: fakeModel{}, Tools: fakeTools{}}
			return nil
		},
		"loop": func(ctx context.Context, c *Case) error {
			for range 2 {
				if _, err := c.Session.Model.Complete(ctx, &inference.Request{}, inference.NopObserver{}); err != nil {
					return err
				}
			}
			_, err := c.Session.Tools.Call(ctx, "calc", nil)
			return err
		},
	})
	r := &Runner{Graph: g, Workers: 1, Tracer: tp.Tracer("test"), NewCase: func(j Job) *Case { return &Case{Input: j.Input, Epoch: 1} }}
	if _, err := collect(t, r, context.Background(), jobs(1)); err != nil {
		t.Fatal(err)
	}
	var loopID string
	under := map[string]int{}
	parents := map[string]string{}
	for _, s := range rec.Ended() {
		if s.Name() == "stage loop" {
			loopID = s.SpanContext().SpanID().String()
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
}
