package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// TestConnectionLog: a change before the run folder opens is kept and
// written when it does, in order with the later ones; each change is
// also an event on the run's span; a resumed run appends; no change, no
// file.
func TestConnectionLog(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 15, 0, 0, 0, time.UTC)
	early := httpapi.ConnectionChange{Time: t0, Endpoint: "http://m:80", From: 8, To: 4, Reason: httpapi.ReasonRateLimited}
	late := httpapi.ConnectionChange{Time: t0.Add(time.Second), Endpoint: "http://m:80", From: 4, To: 5, Reason: httpapi.ReasonRecovered}
	out := t.TempDir()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	_, span := tp.Tracer("test").Start(context.Background(), "run")

	l := &connectionLog{}
	l.record(early)
	if _, err := os.Stat(filepath.Join(out, "logs")); !os.IsNotExist(err) {
		t.Fatalf("before open: logs/ exists (%v), want nothing written", err)
	}
	l.open(out, span)
	l.record(late)
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	span.End()
	again := &connectionLog{} // --resume: the same folder
	again.open(out, nil)
	again.record(late)
	if err := again.close(); err != nil {
		t.Fatal(err)
	}

	var got []httpapi.ConnectionChange
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, filepath.Join(out, "logs", "connections.jsonl"))), "\n") {
		var c httpapi.ConnectionChange
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, c)
	}
	if diff := cmp.Diff(got, []httpapi.ConnectionChange{early, late, late}); diff != "" {
		t.Errorf("logs/connections.jsonl (-got +want):\n%s", diff)
	}
	events := rec.Ended()[0].Events()
	if len(events) != 2 {
		t.Fatalf("span events %+v, want early's and late's", events)
	}
	for i, c := range []httpapi.ConnectionChange{early, late} {
		e := events[i]
		want := []attribute.KeyValue{attribute.String("murmur_eval.endpoint", c.Endpoint), attribute.Int("murmur_eval.from", c.From),
			attribute.Int("murmur_eval.to", c.To), attribute.String("murmur_eval.reason", c.Reason)}
		if e.Name != "murmur_eval.connections" || !e.Time.Equal(c.Time) {
			t.Errorf("span event %d: %s at %s, want murmur_eval.connections at %s", i, e.Name, e.Time, c.Time)
		}
		if diff := cmp.Diff(e.Attributes, want, cmp.Comparer(func(a, b attribute.Value) bool { return a.String() == b.String() })); diff != "" {
			t.Errorf("span event %d attributes (-got +want):\n%s", i, diff)
		}
	}

	quiet := t.TempDir()
	none := &connectionLog{}
	none.open(quiet, nil)
	if err := none.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(quiet, "logs")); !os.IsNotExist(err) {
		t.Errorf("no change: logs/ exists (%v), want no file", err)
	}
}
