// Package trend builds the regression dashboard of `murmur-eval report`: one
// self-contained HTML page over many runs, read back from their Parquet files
// alone, so a page can be rebuilt from archived runs.
//
// Load reads the run folders and orders them by start time; Build turns them
// into a Report (pass rate per scorer across runs with Wilson intervals, each
// run's status breakdown, the latest run against the previous one with
// reports.Diff's McNemar test, a case × run grid sorted by flips, the latest
// run's stage durations and tokens per case) and states its Findings in
// plain sentences; WriteHTML renders it with charts drawn as inline SVG, with
// no script and nothing fetched.
package trend
