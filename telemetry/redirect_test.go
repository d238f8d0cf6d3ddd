package telemetry

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestExportDoesNotFollowRedirects: a collector answering 307 to another
// origin (another loopback address) must not get the export's headers or
// spans sent there (issue 13, --otel-endpoint's share of finding 4).
func TestExportDoesNotFollowRedirects(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer otel-secret,x-collector-key=k-secret")
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	var mu sync.Mutex
	var caught []http.Header
	var caughtBytes int
	evil := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		caught = append(caught, r.Header.Clone())
		caughtBytes += len(b)
		mu.Unlock()
	}))
	evil.Listener.Close()
	evil.Listener = ln
	evil.Start()
	defer evil.Close()

	var first http.Header
	var requests int
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		first = r.Header.Clone()
		mu.Unlock()
		http.Redirect(w, r, evil.URL+"/v1/traces", http.StatusTemporaryRedirect)
	}))
	defer collector.Close()

	ctx := context.Background()
	tel, err := Start(ctx, Config{Endpoint: collector.URL, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	_, span := tel.Tracer().Start(ctx, "run")
	span.End()
	_ = tel.Shutdown(ctx) // the export fails: a 3xx is not followed

	mu.Lock()
	defer mu.Unlock()
	if requests == 0 || first.Get("x-collector-key") != "k-secret" {
		t.Fatalf("the collector got %d requests with headers %v; the test needs the header sent there", requests, first)
	}
	if len(caught) != 0 || caughtBytes != 0 {
		t.Errorf("the redirect's origin got %d requests (%v) and %d body bytes", len(caught), caught, caughtBytes)
	}
}
