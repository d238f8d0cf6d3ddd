package main

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP traces endpoint that decodes what it gets,
// as the collector does.
type otlpReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	var msg coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &msg)
	}
	if err != nil || req.URL.Path != "/v1/traces" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

func spanAttr(s *tracepb.Span, key string) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			if v := a.Value.GetStringValue(); v != "" {
				return v
			}
			return strings.TrimSpace(strings.TrimPrefix(a.Value.String(), "int_value:"))
		}
	}
	return ""
}

// TestOTLPSpansAndHousekeeping runs four selected quickstart cases with the
// spans exported to a receiver: one run span, one case span per case under
// it with its attributes, the stage spans under each case span, the trace id
// in summary.json, the inference and tool calls under the Loop stage span;
// --keep-sessions none leaves no session folder.
func TestOTLPSpansAndHousekeeping(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	rec := &otlpReceiver{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	out, r := newFixture(t, qs).run("--otel-endpoint", srv.URL, "--filter", "calc-*", "--limit", "4", "--keep-sessions", "none", "--progress", "plain")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "] passed "); n != 4 {
		t.Errorf("plain progress: %d lines of passed cases, want 4\nstderr:\n%s", n, r.stderr)
	}
	rows := readParquet(t, filepath.Join(out, "results.parquet")).Rows
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4 (--filter calc-* --limit 4)", len(rows))
	}
	for _, row := range rows {
		if id := row["case_id"].(string); !strings.HasPrefix(id, "calc-") {
			t.Errorf("case %q does not match --filter calc-*", id)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(out, "sessions")); len(left) != 0 {
		t.Errorf("--keep-sessions none left %d session folders", len(left))
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	var runSpan *tracepb.Span
	cases := map[string]*tracepb.Span{} // by span id
	for _, s := range rec.spans {
		switch s.Name {
		case "run":
			runSpan = s
		case "case":
			cases[string(s.SpanId)] = s
		}
	}
	if runSpan == nil {
		t.Fatal("no run span")
	}
	if d := readDigest(t, out); d.TraceID != hex.EncodeToString(runSpan.TraceId) {
		t.Errorf("summary.json trace_id %q, want the run span's %x", d.TraceID, runSpan.TraceId)
	}
	if len(cases) != 4 {
		t.Fatalf("%d case spans, want 4", len(cases))
	}
	stagesUnder := map[string][]string{}
	for _, s := range rec.spans {
		if c := cases[string(s.ParentSpanId)]; c != nil && strings.HasPrefix(s.Name, "stage ") {
			stagesUnder[string(c.SpanId)] = append(stagesUnder[string(c.SpanId)], s.Name)
		}
	}
	loops := map[string]bool{}
	for _, s := range rec.spans {
		if s.Name == "stage loop" {
			loops[string(s.SpanId)] = true
		}
	}
	var inference, tools int
	for _, s := range rec.spans {
		switch {
		case strings.HasPrefix(s.Name, "chat ") && loops[string(s.ParentSpanId)]:
			inference++
		case strings.HasPrefix(s.Name, "execute_tool ") && loops[string(s.ParentSpanId)]:
			tools++
		}
	}
	if inference < 4 || tools < 4 { // each calc case asks the model at least once and calls calc
		t.Errorf("%d inference and %d tool spans under the loop stage spans, want at least 4 each", inference, tools)
	}
	for id, c := range cases {
		if string(c.ParentSpanId) != string(runSpan.SpanId) {
			t.Errorf("case span %s is not under the run span", spanAttr(c, "murmur_eval.case_id"))
		}
		if spanAttr(c, "murmur_eval.status") != "passed" || spanAttr(c, "murmur_eval.epoch") != "1" || spanAttr(c, "murmur_eval.input_tokens") == "" {
			t.Errorf("case span attributes: %v", c.Attributes)
		}
		if got := stagesUnder[id]; len(got) != 7 {
			t.Errorf("case %s: stage spans %v, want the 7 stages", spanAttr(c, "murmur_eval.case_id"), got)
		}
	}
}
