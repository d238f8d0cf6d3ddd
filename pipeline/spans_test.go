package pipeline

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestRunnerSpans: a case span with one child span per stage that ran,
// the failed stage's span marked as an error.
func TestRunnerSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	g := sevenStages(t, map[string]func(context.Context, *Case) error{
		"launch": func(context.Context, *Case) error { return errcode.New(errcode.ReplayMissing, "no recording") },
	})
	r := &Runner{Graph: g, Workers: 1, Tracer: tp.Tracer("test"), NewCase: func(j Job) *Case { return &Case{ID: j.ID, Input: j.Input, Epoch: 1} }}
	if _, err := collect(t, r, context.Background(), jobs(1)); err != nil {
		t.Fatal(err)
	}
	var names []string
	var caseSpan sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		names = append(names, s.Name())
		if s.Name() == "case" {
			caseSpan = s
		}
	}
	want := []string{"stage resolve", "stage verify", "stage stage", "stage contain", "stage launch", "stage report", "case"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("spans (-want +got):\n%s", diff)
	}
	for _, s := range rec.Ended()[:6] {
		if s.Parent().SpanID() != caseSpan.SpanContext().SpanID() {
			t.Errorf("%s: parent is not the case span", s.Name())
		}
		if wantErr := s.Name() == "stage launch"; (s.Status().Code.String() == "Error") != wantErr {
			t.Errorf("%s: status %v", s.Name(), s.Status())
		}
	}
}
