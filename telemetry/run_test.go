package telemetry

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestRunSpan: the run's span carries the run's attributes when it starts
// and its counts when it ends, with an error status only when a case was
// unscored; TraceID is its trace's id.
func TestRunSpan(t *testing.T) {
	tests := []struct {
		name                     string
		passed, failed, unscored int
		code                     codes.Code
		desc                     string
	}{
		{"all scored", 3, 1, 0, codes.Unset, ""},
		{"one unscored", 3, 1, 1, codes.Error, "1 case in error or timeout"},
		{"several unscored", 0, 0, 4, codes.Error, "4 cases in error or timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			defer tp.Shutdown(context.Background())
			tel := &Telemetry{tp: tp, tracer: tp.Tracer("test")}
			_, span := tel.StartRun(context.Background(), Run{ID: "run_1", Dataset: "cases.jsonl", Cases: 4, Epochs: 2, Shard: "0/2"})
			id := TraceID(span)
			EndRun(span, tt.passed, tt.failed, tt.unscored)
			ended := rec.Ended()
			if len(ended) != 1 {
				t.Fatalf("%d spans ended, want 1", len(ended))
			}
			s := ended[0]
			if s.Name() != "run" || id == "" || id != s.SpanContext().TraceID().String() {
				t.Errorf("span %q trace %q, want run and trace %s", s.Name(), id, s.SpanContext().TraceID())
			}
			got := map[attribute.Key]attribute.Value{}
			for _, kv := range s.Attributes() {
				got[kv.Key] = kv.Value
			}
			want := map[attribute.Key]any{"murmur_eval.run_id": "run_1", "murmur_eval.dataset": "cases.jsonl", "murmur_eval.cases": int64(4),
				"murmur_eval.epochs": int64(2), "murmur_eval.shard": "0/2", "murmur_eval.passed": int64(tt.passed),
				"murmur_eval.failed": int64(tt.failed), "murmur_eval.unscored": int64(tt.unscored)}
			for k, v := range want {
				if got[k].AsInterface() != v {
					t.Errorf("%s = %v, want %v", k, got[k].AsInterface(), v)
				}
			}
			if st := s.Status(); st.Code != tt.code || st.Description != tt.desc {
				t.Errorf("status %v %q, want %v %q", st.Code, st.Description, tt.code, tt.desc)
			}
		})
	}
	off, err := Start(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, span := off.StartRun(context.Background(), Run{ID: "run_2"}); TraceID(span) != "" {
		t.Errorf("telemetry off: trace id %q, want none", TraceID(span))
	}
}
