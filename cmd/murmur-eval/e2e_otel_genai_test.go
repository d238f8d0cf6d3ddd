package main

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/murmur-nexus/murmur-eval/telemetry/genai"
)

// anyAttr is the value of s's attribute key, nil when it has none.
func anyAttr(attrs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, a := range attrs {
		if a.Key == key {
			return a.Value
		}
	}
	return nil
}

// genaiSpans is what the receiver got, indexed for the GenAI checks.
type genaiSpans struct {
	all    []*tracepb.Span
	byID   map[string]*tracepb.Span
	caseOf map[string]*tracepb.Span // span id -> the case span above it
}

func indexSpans(spans []*tracepb.Span) genaiSpans {
	g := genaiSpans{all: spans, byID: map[string]*tracepb.Span{}, caseOf: map[string]*tracepb.Span{}}
	for _, s := range spans {
		g.byID[string(s.SpanId)] = s
	}
	for _, s := range spans {
		for p := s; p != nil; p = g.byID[string(p.ParentSpanId)] {
			if p.Name == "case" {
				g.caseOf[string(s.SpanId)] = p
				break
			}
		}
	}
	return g
}

func (g genaiSpans) caseID(s *tracepb.Span) string {
	if c := g.caseOf[string(s.SpanId)]; c != nil {
		return spanAttr(c, "murmur_eval.case_id")
	}
	return ""
}

// TestOTLPGenAIConventions runs the quickstart's calc-*, direct-answer and
// model-error cases (calc-precedence made to fail its result_contains;
// failed cases alone do not fail the run)
// with spans exported to an OTLP/HTTP receiver, and checks the spans in
// the OpenTelemetry GenAI conventions: a CLIENT "chat {model}" span per
// model call with the provider, model, server, finish reasons and the
// recorded usage; an INTERNAL "execute_tool {name}" span per tool call
// with the model's call id; the case span as invoke_agent of the capsule;
// and one gen_ai.evaluation.result event per row of scores.parquet, in
// order, with its scorer, score, pass/fail and reason.
func TestOTLPGenAIConventions(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	rec := &otlpReceiver{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	out := runGenAICases(t, qs, srv.URL)
	checkGenAISpans(t, rec, out)
}

// runGenAICases runs TestOTLPGenAIConventions's cases of the quickstart
// copy qs with its spans sent to endpoint, and returns the run folder.
func runGenAICases(t *testing.T, qs, endpoint string) string {
	t.Helper()
	editFile(t, filepath.Join(qs, "cases.jsonl"), `"result_contains": "17.5"`, `"result_contains": "17.6"`)
	out, r := newFixture(t, qs).run("--otel-endpoint", endpoint, "--filter", "[cdm]*", "--max-error-rate", "1")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	return out
}

// checkGenAISpans checks what rec got against the conventions and the
// scores of the run folder out.
func checkGenAISpans(t *testing.T, rec *otlpReceiver, out string) {
	t.Helper()
	rec.mu.Lock()
	g := indexSpans(append([]*tracepb.Span(nil), rec.spans...))
	rec.mu.Unlock()
	checkChatSpans(t, g)
	checkToolSpans(t, g)
	checkEvaluations(t, g, out)
}

func checkChatSpans(t *testing.T, g genaiSpans) {
	t.Helper()
	inputTokens := map[string]int64{}
	var chats int
	for _, s := range g.all {
		if s.Name == "inference" || strings.HasPrefix(s.Name, "tool ") {
			t.Errorf("span %q: the old name", s.Name)
		}
		if !strings.HasPrefix(s.Name, "chat") {
			continue
		}
		chats++
		got := fmt.Sprint(s.Name, s.Kind, spanAttr(s, "gen_ai.operation.name"), spanAttr(s, "gen_ai.provider.name"),
			spanAttr(s, "gen_ai.request.model"), spanAttr(s, "server.address"), spanAttr(s, "server.port"))
		if want := fmt.Sprint("chat claude-sonnet-4-5", tracepb.Span_SPAN_KIND_CLIENT, "chat", "anthropic", "claude-sonnet-4-5", "api.anthropic.com", "443"); got != want {
			t.Errorf("chat span of %s: %s, want %s", g.caseID(s), got, want)
		}
		reasons := anyAttr(s.Attributes, "gen_ai.response.finish_reasons").GetArrayValue().GetValues()
		if len(reasons) != 1 || reasons[0].GetStringValue() != spanAttr(s, "murmur_eval.stop_reason") {
			t.Errorf("chat span of %s: finish reasons %v, want [%s]", g.caseID(s), reasons, spanAttr(s, "murmur_eval.stop_reason"))
		}
		inputTokens[g.caseID(s)] += anyAttr(s.Attributes, "gen_ai.usage.input_tokens").GetIntValue()
		if g.caseID(s) == "model-error" && (spanAttr(s, "error.type") != "_OTHER" || s.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR) {
			t.Errorf("model-error's chat span: error.type %q, status %v; want _OTHER and an error", spanAttr(s, "error.type"), s.GetStatus())
		}
	}
	if chats < 8 {
		t.Errorf("%d chat spans, want one per model call (at least 8)", chats)
	}
	if got := inputTokens["calc-multiply"]; got != 612+705 { // recordings/calc-multiply.jsonl's usage
		t.Errorf("calc-multiply: gen_ai.usage.input_tokens add up to %d, want 1317", got)
	}
}

func checkToolSpans(t *testing.T, g genaiSpans) {
	t.Helper()
	var tools int
	for _, s := range g.all {
		if !strings.HasPrefix(s.Name, "execute_tool") {
			continue
		}
		tools++
		got := fmt.Sprint(s.Name, s.Kind, spanAttr(s, "gen_ai.operation.name"), spanAttr(s, "gen_ai.tool.name"),
			spanAttr(s, "gen_ai.tool.type"), spanAttr(s, "murmur_eval.tool"))
		if want := fmt.Sprint("execute_tool calc", tracepb.Span_SPAN_KIND_INTERNAL, "execute_tool", "calc", "function", "calc"); got != want {
			t.Errorf("tool span of %s: %s, want %s", g.caseID(s), got, want)
		}
		if id := spanAttr(s, "gen_ai.tool.call.id"); id == "" || (g.caseID(s) == "calc-multiply" && id != "call_1") {
			t.Errorf("tool span of %s: gen_ai.tool.call.id %q", g.caseID(s), id)
		}
	}
	if tools < 6 { // each of the 6 calc cases calls calc at least once
		t.Errorf("%d execute_tool spans, want at least 6", tools)
	}
}

type evaluation struct {
	Name, Label, Explanation string
	Value                    float64
}

func checkEvaluations(t *testing.T, g genaiSpans, out string) {
	t.Helper()
	want := map[string][]evaluation{}
	for _, row := range readParquet(t, filepath.Join(out, "scores.parquet")).Rows {
		k := fmt.Sprint(row["case_id"], "/", row["epoch"], "/", row["attempt"])
		want[k] = append(want[k], evaluation{row["scorer"].(string), row["result"].(string),
			genai.Cut(row["reason"].(string), genai.MaxExplanation), row["score"].(float64)})
	}
	got := map[string][]evaluation{}
	var cases int
	for _, s := range g.all {
		if s.Name != "case" {
			continue
		}
		cases++
		if a := fmt.Sprint(spanAttr(s, "gen_ai.operation.name"), spanAttr(s, "gen_ai.agent.name"), spanAttr(s, "gen_ai.agent.version")); a != "invoke_agentquickstart0.1.0" {
			t.Errorf("case span %s: GenAI attributes %q", spanAttr(s, "murmur_eval.case_id"), a)
		}
		k := fmt.Sprint(spanAttr(s, "murmur_eval.case_id"), "/", spanAttr(s, "murmur_eval.epoch"), "/", spanAttr(s, "murmur_eval.attempt"))
		for _, e := range s.Events {
			if e.Name != genai.EvaluationEvent {
				continue
			}
			got[k] = append(got[k], evaluation{spanAttr2(e.Attributes, "gen_ai.evaluation.name"), spanAttr2(e.Attributes, "gen_ai.evaluation.score.label"),
				spanAttr2(e.Attributes, "gen_ai.evaluation.explanation"), anyAttr(e.Attributes, "gen_ai.evaluation.score.value").GetDoubleValue()})
		}
	}
	if cases != 8 || len(want) != 8 {
		t.Fatalf("%d case spans and %d scored cases, want 8 each", cases, len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gen_ai.evaluation.result events by case (-scores.parquet +spans):\n%s", diff)
	}
	var failed bool
	for _, e := range got["calc-precedence/1/1"] {
		failed = failed || (e.Name == "result_contains" && e.Label == "fail" && e.Value == 0)
	}
	if !failed {
		t.Errorf("calc-precedence: no failing result_contains event in %v", got["calc-precedence/1/1"])
	}
}

// spanAttr2 is the string value of the attribute key, "" when absent.
func spanAttr2(attrs []*commonpb.KeyValue, key string) string {
	return anyAttr(attrs, key).GetStringValue()
}
