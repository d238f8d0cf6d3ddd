package sandbox

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/sandbox/cgroup"
)

// testCgroupRun is a run cgroup for a test, removed at its end. It skips
// where the host has no usable hierarchy, except as root under CI, where
// this machine's kind has one.
func testCgroupRun(tb testing.TB) *cgroup.Run {
	tb.Helper()
	h, err := cgroup.Detect()
	if err != nil {
		if os.Getenv("CI") != "" && os.Getuid() == 0 {
			tb.Fatalf("no cgroup under CI as root: %v", err)
		}
		tb.Skipf("no cgroup: %v", err)
	}
	run, err := h.NewRun("")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := run.Close(); err != nil {
			tb.Errorf("remove the run's cgroup: %v", err)
		}
	})
	return run
}

// TestCgroupBoundsACallsTree: each call's process tree is bounded as a
// whole by its cgroup, and the shell result names the limit: a fork loop
// stops near cgroup_pids_max although RLIMIT_NPROC would allow far more,
// and a process that touches more memory than cgroup_memory_bytes is
// killed (137) although RLIMIT_AS would allow it.
func TestCgroupBoundsACallsTree(t *testing.T) {
	requireSandbox(t)
	run := testCgroupRun(t)
	s := spawnerWith(t, SpawnerOptions{ShellAllow: testShellAllow(), Cgroups: run})
	dir, _ := sessionDir(t)
	res := defaultResources()
	res.MaxProcesses = 512
	res.CgroupPidsMax = 32
	res.CgroupMemoryBytes = 64 << 20
	res.MemoryBytes = 4 << 30
	call := func(args ...string) *ProcResult {
		t.Helper()
		bin := attack(t)
		r, err := s.Run(context.Background(), Proc{Path: bin, Argv: append([]string{"attack"}, args...), Dir: dir, SessionDir: dir,
			Resources: res, Isolate: true, CapsuleGrants: true, Env: []string{"PATH=/usr/bin:/bin"},
			Deadline: 60 * time.Second, MaxOutput: 16 << 10})
		if err != nil {
			t.Fatalf("attack %v: %v", args, err)
		}
		return r
	}
	t.Run("fork loop", func(t *testing.T) {
		r := call("spawn", "400", attack(t))
		out := string(r.Stdout) + string(r.Stderr)
		var n int
		if i := strings.Index(out, "started"); i < 0 {
			t.Fatalf("no count in %q", out)
		} else if _, err := fmt.Sscanf(out[i:], "started %d", &n); err != nil {
			t.Fatalf("no count in %q", out)
		}
		if n >= 32 {
			t.Errorf("started %d processes with cgroup_pids_max 32: %q", n, out)
		}
		if r.ResourceLimit != "cgroup_pids_max" {
			t.Errorf("resource_limit %q, want cgroup_pids_max (output %q)", r.ResourceLimit, out)
		}
	})
	t.Run("memory hog", func(t *testing.T) {
		r := call("hog")
		if r.ExitCode != 137 || r.ResourceLimit != "cgroup_memory_bytes" {
			t.Errorf("exit %d, resource_limit %q, want 137 and cgroup_memory_bytes (output %q)", r.ExitCode, r.ResourceLimit, r.Stdout)
		}
	})
}
