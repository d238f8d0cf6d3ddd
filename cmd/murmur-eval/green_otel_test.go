package main

import (
	"net"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestTraceStatusAtAGlance: a case span whose case did not pass has an
// Error status (not only an attribute), a tool span carries its tool
// error's code, and an unreachable collector is reported once by
// murmur-eval's own warning, not by the SDK's log line per batch.
func TestTraceStatusAtAGlance(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	// The calc tool dropped: calc-multiply's call fails with E-EVL-070.
	editFile(t, filepath.Join(qs, "murmur.yaml"), "  - name: calc\n    runtime: tool\n    version: 0.1.0\n", "")
	recv := &otlpReceiver{}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	_, r := newFixture(t, qs).run("--filter", "[cdm]*", "--otel-endpoint", srv.URL,
		"--max-error-rate", "1")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	recv.mu.Lock()
	spans := append([]*tracepb.Span(nil), recv.spans...)
	recv.mu.Unlock()
	cases := map[string]*tracepb.Span{}
	var toolSpan *tracepb.Span
	for _, s := range spans {
		switch {
		case s.Name == "case":
			cases[spanAttr(s, "murmur_eval.case_id")] = s
		case s.Name == "execute_tool calc":
			toolSpan = s
		}
	}
	for id, s := range cases {
		status := spanAttr(s, "murmur_eval.status")
		isErr := s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR
		if want := status != "passed"; isErr != want {
			t.Errorf("case %s (%s): span status %v, want error %v", id, status, s.GetStatus(), want)
		}
	}
	if len(cases) < 4 {
		t.Errorf("%d case spans, want the 9 of calc-*, direct-answer and model-error", len(cases))
	}
	if toolSpan == nil || spanAttr(toolSpan, "murmur_eval.code") != errcode.ToolNotProvided ||
		toolSpan.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || toolSpan.GetStatus().GetMessage() != errcode.ToolNotProvided {
		t.Errorf("tool span %v: want status error with %s", toolSpan, errcode.ToolNotProvided)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	_, r = newFixture(t, qs).run("--filter", "direct-answer", "--otel-endpoint", dead)
	if n := strings.Count(r.stderr, "murmur-eval: warning["+errcode.IO+"]: the OTLP collector at "+dead+"/v1/traces did not take"); n != 1 {
		t.Errorf("an unreachable collector warned %d times, want once\nstderr:\n%s", n, r.stderr)
	}
	if strings.Count(r.stderr, "traces export") != 1 { // once, quoted in murmur-eval's warning
		t.Errorf("the SDK's own log line appeared:\n%s", r.stderr)
	}
}
