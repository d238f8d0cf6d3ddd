package telemetry

import (
	"net/http"
	"time"
)

// exportTimeout bounds one export request, as otlptracehttp's default does.
const exportTimeout = 10 * time.Second

// exportClient is the exporter's HTTP client. It differs from
// otlptracehttp's own in one way: it never follows a redirect. An export
// carries the headers of OTEL_EXPORTER_OTLP_HEADERS (often a collector's
// API key) and every span; Go's client would resend them, body and all, to
// whatever origin a 307 names, dropping only Authorization and only on a
// host change. A 3xx is instead a failed export (a warning at the end of
// the run). Proxies are still taken from the environment.
func exportClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	return &http.Client{
		Transport: tr,
		Timeout:   exportTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
