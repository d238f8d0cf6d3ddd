// Command otelcol-check is a small OpenTelemetry Collector built from the
// collector's own modules (v0.165.0): the OTLP receiver, and the OTLP/HTTP
// and debug exporters. TestOTLPThroughARealCollector runs it between
// murmur-eval and a test receiver (MURMUR_OTELCOL names the binary). It is
// a module of its own, so the collector's dependencies stay out of
// murmur-eval's go.mod.
package main

import (
	"log"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func main() {
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol-check", Description: "check", Version: "0.0.1"},
		Factories: func() (otelcol.Factories, error) {
			r := otlpreceiver.NewFactory()
			e, h := debugexporter.NewFactory(), otlphttpexporter.NewFactory()
			return otelcol.Factories{
				Receivers: map[component.Type]receiver.Factory{r.Type(): r},
				Exporters: map[component.Type]exporter.Factory{e.Type(): e, h.Type(): h},
				Telemetry: otelconftelemetry.NewFactory(),
			}, nil
		},
		ConfigProviderSettings: otelcol.ConfigProviderSettings{ResolverSettings: confmap.ResolverSettings{
			ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
			DefaultScheme:     "file",
		}},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		log.Fatal(err)
	}
}
