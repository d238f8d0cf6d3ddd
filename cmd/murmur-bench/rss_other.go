//go:build !linux

package main

import "os"

// maxRSSMiB is not measured off Linux (the benchmarks are Linux's).
func maxRSSMiB(*os.ProcessState) float64 { return 0 }

// minorFaults is not measured off Linux.
func minorFaults(*os.ProcessState) int64 { return 0 }
