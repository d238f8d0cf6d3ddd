package main

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
)

// collectorEnv names an OpenTelemetry Collector binary with the otlp
// receiver and the OTLP/HTTP exporter (the core otelcol distribution has
// both). testdata/otelcol is a small one, a module of its own:
//
//	(cd cmd/murmur-eval/testdata/otelcol && go build -o /tmp/otelcol .)
//	MURMUR_OTELCOL=/tmp/otelcol go test ./cmd/murmur-eval/ -run TestOTLPThroughARealCollector
//
// scripts/test-deps.sh (make test, .ci/run) builds it into bin/otelcol,
// where the test finds it unless MURMUR_OTELCOL names another; a missing
// collector fails the test, saying how to build it (internal/tooltest).
const collectorEnv = "MURMUR_OTELCOL"

// collectorBinary is the collector the test runs: MURMUR_OTELCOL, else
// the module's bin/otelcol; "" when missing (the test failed or skipped).
func collectorBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv(collectorEnv)
	if bin == "" {
		bin = filepath.Join(moduleRoot(t), "bin", "otelcol")
	}
	if _, err := os.Stat(bin); err != nil {
		tooltest.Missing(t, "the OpenTelemetry Collector "+bin, "./scripts/test-deps.sh (it builds cmd/murmur-eval/testdata/otelcol into bin/otelcol)")
		return ""
	}
	return bin
}

// collectorConfig is the collector's configuration: OTLP/HTTP in on
// listen, the traces out over OTLP/HTTP (protobuf, uncompressed) to to,
// by the exporter named %[3]s (otlp_http since collector v0.14x, otlphttp
// before).
const collectorConfig = `receivers:
  otlp:
    protocols:
      http:
        endpoint: %[1]s
exporters:
  %[3]s:
    endpoint: %[2]s
    compression: none
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [%[3]s]
`

// TestOTLPThroughARealCollector is TestOTLPGenAIConventions with a real
// OpenTelemetry Collector between murmur-eval and the receiver: the
// collector decodes the export into its own data model and sends it on,
// so the spans' GenAI names, attributes and evaluation events are checked
// as a collector passes them to a backend.
func TestOTLPThroughARealCollector(t *testing.T) {
	bin := collectorBinary(t)
	if bin == "" {
		return
	}
	qs := quickstart(t)
	t.Parallel()
	rec := &otlpReceiver{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	listen := startCollector(t, bin, srv.URL)
	out := runGenAICases(t, qs, "http://"+listen)
	// The collector sends on in its own time: wait for the run span and
	// the 8 case spans.
	for deadline := time.Now().Add(20 * time.Second); !receivedRun(rec, 8) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	checkGenAISpans(t, rec, out)
}

// receivedRun reports whether rec has the run span and cases case spans.
func receivedRun(rec *otlpReceiver, cases int) bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var run bool
	for _, s := range rec.spans {
		switch s.Name {
		case "run":
			run = true
		case "case":
			cases--
		}
	}
	return run && cases <= 0
}

// startCollector runs the collector bin sending to to, and returns its
// OTLP/HTTP address once it accepts connections; it is stopped when the
// test ends. A collector that does not know the exporter's newer name is
// started again with the older one.
func startCollector(t *testing.T, bin, to string) string {
	t.Helper()
	listen, logs, err := tryCollector(t, bin, to, "otlp_http")
	if err != nil && strings.Contains(logs, `unknown type: "otlp_http"`) {
		listen, logs, err = tryCollector(t, bin, to, "otlphttp")
	}
	if err != nil {
		t.Fatalf("start the collector: %v\n%s", err, logs)
	}
	return listen
}

// tryCollector starts the collector with exporter, and returns its
// address, or its output and why it did not listen.
func tryCollector(t *testing.T, bin, to, exporter string) (string, string, error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := l.Addr().String()
	l.Close()
	cfg := filepath.Join(t.TempDir(), "otelcol.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, collectorConfig, listen, to, exporter), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	cmd := exec.CommandContext(ctx, bin, "--config", "file:"+cfg)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		cancel()
		return "", "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cancel()
		<-exited
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			cancel()
			return "", logs.String(), fmt.Errorf("it exited: %w", err)
		default:
		}
		if c, err := net.Dial("tcp", listen); err == nil {
			c.Close()
			t.Cleanup(func() {
				stop()
				if t.Failed() {
					t.Logf("collector output:\n%s", logs.String())
				}
			})
			return listen, "", nil
		}
	}
	stop()
	return "", logs.String(), fmt.Errorf("it did not listen on %s within 20s", listen)
}
