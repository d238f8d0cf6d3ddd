package main

import "github.com/murmur-nexus/murmur-eval/reports"

// readLimits are the bounds on the Parquet files diff, show, report, merge
// and --baseline read from elsewhere: reports.DefaultReadLimits, changed
// by MURMUR_EVAL_READ_LIMITS (docs/dashboards.md, "Reading runs from
// elsewhere").
func readLimits(env map[string]string) (reports.ReadLimits, error) {
	return reports.ParseReadLimits(env[reports.ReadLimitsEnv], reports.DefaultReadLimits())
}
