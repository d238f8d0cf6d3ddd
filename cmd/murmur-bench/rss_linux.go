package main

import (
	"os"
	"syscall"
)

// maxRSSMiB is the finished process's peak resident set (getrusage's
// ru_maxrss, in kilobytes on Linux).
func maxRSSMiB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024
	}
	return 0
}

// minorFaults is how many minor page faults the finished process took
// (ru_minflt): each is a trip into the kernel, ~14 µs on the benchmark
// machine, a paravirtualised guest (BENCHMARKS.md, issue 19, session 11).
func minorFaults(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Minflt
	}
	return 0
}
