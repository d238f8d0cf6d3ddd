// Package reports turns a run's results into files people and dashboards read.
//
// A run writes two Parquet files: results.parquet, one ResultRow per case,
// and events.parquet, one EventRow per trace event of every case. Their
// column names and types are a contract documented in
// docs/output-columns.md. Each file is written by a Sink, the one goroutine
// that owns it, fed through a channel, and appears at its final path only
// once complete. A Summary condenses the results into the plain-text report
// printed at the end of a run.
package reports
