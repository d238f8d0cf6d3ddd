package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// receiver is an OTLP/HTTP traces endpoint that decodes what it gets.
type receiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
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
	w.Write(out)
}

func TestExportsSpansOverOTLP(t *testing.T) {
	rec := &receiver{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	ctx := context.Background()
	tel, err := Start(ctx, Config{Endpoint: srv.URL, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, run := tel.Tracer().Start(ctx, "run")
	_, c := tel.Tracer().Start(runCtx, "case")
	c.End()
	run.End()
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.spans) != 2 {
		t.Fatalf("receiver got %d spans, want 2", len(rec.spans))
	}
	byName := map[string]*tracepb.Span{}
	for _, s := range rec.spans {
		byName[s.Name] = s
	}
	if string(byName["case"].ParentSpanId) != string(byName["run"].SpanId) {
		t.Error("case span is not a child of the run span")
	}
}

func TestDisabledAndBadEndpoints(t *testing.T) {
	tel, err := Start(context.Background(), Config{})
	if err != nil || tel.Enabled() {
		t.Fatalf("Start without endpoint = %v, %v; want disabled", tel, err)
	}
	for _, bad := range []string{"localhost:4318", "ftp://x", "http://"} {
		if _, err := Start(context.Background(), Config{Endpoint: bad}); errcode.Code(err) != errcode.Usage {
			t.Errorf("Start(%q) = %v, want E-EVL-001", bad, err)
		}
	}
	for in, want := range map[string]string{
		"http://h:4318":           "http://h:4318/v1/traces",
		"http://h:4318/":          "http://h:4318/v1/traces",
		"https://h/custom/traces": "https://h/custom/traces",
	} {
		if got, _ := tracesURL(in); got != want {
			t.Errorf("tracesURL(%q) = %q, want %q", in, got, want)
		}
	}
}
