package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/murmur-nexus/murmur-eval/telemetry/genai"
)

// oneCase makes the spans of one quickstart-sized case (a case span, two
// model calls, one tool call) as murmur-eval did before the GenAI
// conventions (gen is false) or does now (gen is true: span names, the
// GenAI attributes and four gen_ai.evaluation.result events).
func oneCase(ctx context.Context, tr trace.Tracer, gen bool) {
	chat := genai.Chat{Model: "claude-sonnet-4-5", Provider: "anthropic", Endpoint: "https://api.anthropic.com", MaxTokens: 1024}
	ctx, c := tr.Start(ctx, "case", trace.WithAttributes(attribute.String("murmur_eval.case_id", "calc-multiply"), attribute.Int("murmur_eval.epoch", 1)))
	for _, stop := range []string{"tool_call", "end_turn"} {
		name, attrs := "inference", []attribute.KeyValue{attribute.String("gen_ai.request.model", chat.Model)}
		if gen {
			name, attrs = chat.SpanName(), chat.Attributes()
		}
		_, s := tr.Start(ctx, name, trace.WithAttributes(attrs...))
		if gen {
			s.SetAttributes(genai.ChatResponse(stop, &genai.Usage{Input: 612, Output: 48})...)
		} else {
			s.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", 612), attribute.Int64("gen_ai.usage.output_tokens", 48))
		}
		s.SetAttributes(attribute.String("murmur_eval.stop_reason", stop))
		s.End()
		if stop == "tool_call" {
			name, attrs := "tool calc", []attribute.KeyValue{attribute.String("murmur_eval.tool", "calc")}
			if gen {
				name, attrs = genai.ToolSpanName("calc"), append(genai.ToolAttributes("calc", "call_1"), attrs...)
			}
			_, ts := tr.Start(ctx, name, trace.WithAttributes(attrs...))
			ts.SetAttributes(attribute.Bool("murmur_eval.tool_error", false))
			ts.End()
		}
	}
	c.SetAttributes(attribute.String("murmur_eval.status", "passed"), attribute.Int64("murmur_eval.input_tokens", 1317))
	if gen {
		c.SetAttributes(genai.AgentAttributes("quickstart", "0.1.0")...)
		for _, n := range []string{"exit_ok", "max_turns", "result_contains", "result_matches"} {
			genai.AddEvaluation(c, genai.Evaluation{Name: n, Value: 1, Pass: true, Reason: `result contains "42"`})
		}
	}
	c.End()
}

// BenchmarkCaseSpans is the CPU of one case's spans with export on, the
// OTLP/HTTP exporter sending to a local server that discards them: before
// the GenAI conventions and with them (issue 36, item 6).
func BenchmarkCaseSpans(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		gen  bool
	}{{"before", false}, {"genai", true}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			tel, err := Start(ctx, Config{Endpoint: srv.URL, Version: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				oneCase(ctx, tel.Tracer(), tc.gen)
			}
			if err := tel.Shutdown(ctx); err != nil { // the export's CPU is in the run
				b.Fatal(err)
			}
		})
	}
}
