package view

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The benchmarks behind BENCHMARKS.md's "The view site": go test
// ./reports/view/ -run '^$' -bench . -benchtime 3x

// BenchmarkSite10k writes the site of a generated 10,000-case run (a
// session folder per case, with transcript and trace), reporting the
// index's size.
func BenchmarkSite10k(b *testing.B) {
	run := filepath.Join(b.TempDir(), "run")
	start := time.Now()
	genRun(b, run, "run10k", manyCases(10_000))
	b.Logf("generated 10,000 cases in %s", time.Since(start).Round(time.Millisecond))
	s, err := Open(Options{Run: run})
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(run, "site")
	var st Stats
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		if st, err = s.Write(context.Background(), out); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCPU(b, cpu0)
	b.ReportMetric(float64(st.IndexBytes), "index-bytes")
	b.ReportMetric(float64(st.Pages), "pages")
}

// BenchmarkOpen10k reads a generated 10,000-case run back (the Parquet
// files), the part of `murmur-eval view` before the pages.
func BenchmarkOpen10k(b *testing.B) {
	run := filepath.Join(b.TempDir(), "run")
	genRun(b, run, "run10k", manyCases(10_000))
	b.ResetTimer()
	for range b.N {
		if _, err := Open(Options{Run: run}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCasePage50MB writes the page of one case whose trace.jsonl is
// 50 MB and whose transcript holds a 25 MB tool output, reporting the
// page's size.
func BenchmarkCasePage50MB(b *testing.B) {
	run := filepath.Join(b.TempDir(), "run")
	out := strings.Repeat("a line of a long tool output\n", 25<<20/29)
	genRun(b, run, "run50", []genCase{{id: "big", answer: "done", toolOutput: out, traceBytes: 50 << 20}})
	s, err := Open(Options{Run: run})
	if err != nil {
		b.Fatal(err)
	}
	site := filepath.Join(run, "site")
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		if _, err := s.Write(context.Background(), site); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCPU(b, cpu0)
	fi, err := os.Stat(filepath.Join(site, "cases", "big.html"))
	if err != nil {
		b.Fatal(err)
	}
	tr, _ := os.Stat(filepath.Join(run, "sessions", "ses_run50_000000", "trace.jsonl"))
	b.ReportMetric(float64(fi.Size()), "page-bytes")
	b.ReportMetric(float64(tr.Size()), "trace-bytes")
}

// cpuTime is the process's user and system time so far: on a shared
// machine the wall time measures the neighbours as much as the site.
func cpuTime() [2]time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return [2]time.Duration{}
	}
	return [2]time.Duration{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())}
}

// reportCPU reports the user and system seconds per op since cpu0.
func reportCPU(b *testing.B, cpu0 [2]time.Duration) {
	cpu := cpuTime()
	b.ReportMetric((cpu[0]-cpu0[0]).Seconds()/float64(b.N), "user-s/op")
	b.ReportMetric((cpu[1]-cpu0[1]).Seconds()/float64(b.N), "sys-s/op")
}
