// Package reports turns a run's results into files people, CI systems and
// dashboards read, and reads them back.
//
// A run writes three Parquet files: results.parquet, one ResultRow per case;
// scores.parquet, one ScoreRow per scored case and scorer; events.parquet,
// one EventRow per trace event of every case. Their column names and types
// are a contract documented in docs/output-columns.md. Each file is written
// by a Sink, the one goroutine that owns it, fed through a channel, and
// appears at its final path only once complete.
//
// A Summary condenses the rows into a Digest (summary.json): counts per
// status, pass rates over both denominators with Wilson intervals, per
// scorer, the failed and slowest cases, the error codes. The Digest renders
// as the terminal summary (WriteText) and as Markdown (WriteMarkdown); JUnit
// writes junit.xml. ReadRun reads a finished run back, and Diff compares two
// runs scorer by scorer with McNemar's exact test.
package reports
