package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkGroupLifecycle is one call's cgroup cost on this host's real
// tree: make the group with all four limits, move a process into it,
// move it out again (what its exit does) and close the group.
func BenchmarkGroupLifecycle(b *testing.B) {
	h, r := realRun(b)
	sleeper := exec.Command("sleep", "3600")
	if err := sleeper.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() })
	pid := sleeper.Process.Pid
	wd, _ := os.Getwd()
	l := Limits{MemoryBytes: 4 << 30, PidsMax: 256, CPUPercent: 200, IOBytesPerSec: 100 << 20, IODevice: wd}
	names := make([]string, b.N)
	for i := range names {
		names[i] = "bench-" + uitoa(uint64(i))
	}
	b.ResetTimer()
	defer reportCPU(b)()
	for i := range b.N {
		g, err := r.NewGroup(names[i], l)
		if err != nil {
			b.Fatal(err)
		}
		if err := g.Join(pid); err != nil {
			b.Fatal(err)
		}
		for _, own := range h.dirs() {
			if err := writeFile(filepath.Join(own, "cgroup.procs"), uitoa(uint64(pid))); err != nil {
				b.Fatal(err)
			}
		}
		_ = g.Killed()
		if err := g.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProcess is a short process (/bin/true) started and waited for,
// bare and in a group of its own: what a group adds to a subprocess call.
func BenchmarkProcess(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true")
	}
	b.Run("bare", func(b *testing.B) {
		defer reportCPU(b)()
		for range b.N {
			if err := exec.Command(truePath).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("group", func(b *testing.B) {
		_, r := realRun(b)
		l := Limits{MemoryBytes: 4 << 30, PidsMax: 256, CPUPercent: 200}
		defer reportCPU(b)()
		for i := range b.N {
			g, err := r.NewGroup("p"+uitoa(uint64(i)), l)
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command(truePath)
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			_ = g.Join(cmd.Process.Pid) // true may be gone already
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			_ = g.Killed()
			if err := g.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU reports the CPU time (user and system) this process spent an
// operation, from now to the call of the func it returns: on a machine
// shared with other work, a figure the wait for a CPU does not inflate.
func reportCPU(b *testing.B) func() {
	var before unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &before)
	return func() {
		var after unix.Rusage
		_ = unix.Getrusage(unix.RUSAGE_SELF, &after)
		ns := func(r unix.Rusage) int64 { return r.Utime.Nano() + r.Stime.Nano() }
		b.ReportMetric(float64(ns(after)-ns(before))/float64(b.N), "cpu-ns/op")
	}
}
