// Package telemetry exports murmur-eval's OpenTelemetry spans (a span per
// run, per case and per stage; the executor makes them) over OTLP/HTTP to a
// collector, when an endpoint is configured. Without one, the tracer is a
// no-op and nothing is sent.
package telemetry

import (
	"context"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Config says where spans go.
type Config struct {
	// Endpoint is the collector: a full traces URL
	// (http://host:4318/v1/traces), or a base URL as in
	// OTEL_EXPORTER_OTLP_ENDPOINT (http://host:4318), to which /v1/traces
	// is added. "" disables export.
	Endpoint string
	// Version is murmur-eval's version, recorded on the resource.
	Version string
}

// Telemetry owns the tracer provider of one run.
type Telemetry struct {
	tp     *sdktrace.TracerProvider // nil when disabled
	tracer trace.Tracer
	exp    *reportingExporter
	url    string
}

// Start sets up export to cfg.Endpoint; with no endpoint it returns a
// disabled Telemetry whose tracer records nothing.
func Start(ctx context.Context, cfg Config) (*Telemetry, error) {
	if cfg.Endpoint == "" {
		return &Telemetry{tracer: noop.NewTracerProvider().Tracer("")}, nil
	}
	u, err := tracesURL(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u), otlptracehttp.WithHTTPClient(exportClient()))
	if err != nil {
		return nil, errcode.Wrap(errcode.Usage, err, "OTLP endpoint %q", cfg.Endpoint)
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", "murmur-eval"),
		attribute.String("service.version", cfg.Version),
	)
	rep := &reportingExporter{SpanExporter: exp}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(rep), sdktrace.WithResource(res))
	return &Telemetry{tp: tp, tracer: tp.Tracer("github.com/murmur-nexus/murmur-eval"), exp: rep, url: u}, nil
}

// tracesURL turns a base or full OTLP/HTTP URL into the traces URL.
func tracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errcode.New(errcode.Usage, "invalid OTLP endpoint %q: want an http(s) URL", endpoint).
			WithHint("--otel-endpoint http://localhost:4318")
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// Enabled reports whether spans are exported.
func (t *Telemetry) Enabled() bool { return t.tp != nil }

// Tracer returns the run's tracer.
func (t *Telemetry) Tracer() trace.Tracer { return t.tracer }

// Shutdown flushes the spans still queued and stops the exporter. Spans
// that could not be exported during the run are reported here, once, with
// the collector's address and the first failure.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	err := t.tp.Shutdown(ctx)
	if lost, first := t.exp.failures(); first != nil {
		return errcode.Wrap(errcode.IO, first, "the OTLP collector at %s did not take %d spans", t.url, lost).
			WithHint("check --otel-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT) and that the collector is up; the run's results do not depend on it")
	}
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "export spans to %s", t.url)
	}
	return nil
}
