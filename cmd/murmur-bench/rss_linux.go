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
