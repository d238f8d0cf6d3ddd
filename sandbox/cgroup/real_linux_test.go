package cgroup

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// realRun is a run on this host's real cgroup tree. It skips where there
// is none to use (not root, or Detect finds none), except on a CI machine
// as root with a writable v1 pids mount: there the tree exists and Detect
// must find it.
func realRun(t testing.TB) (*Hierarchy, *Run) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make cgroups")
	}
	h, err := Detect()
	if err != nil {
		if os.Getenv("CI") != "" && v1PidsWritable() {
			t.Fatalf("Detect: %v; want a hierarchy (root, /sys/fs/cgroup/pids is a writable v1 mount)", err)
		}
		t.Skipf("no usable cgroup here: %v", err)
	}
	r, err := h.NewRun("")
	if err != nil {
		if errors.Is(err, ErrUnavailable) && !(os.Getenv("CI") != "" && v1PidsWritable()) {
			t.Skipf("no usable cgroup here: %v", err)
		}
		t.Fatalf("NewRun: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Run.Close: %v", err)
		}
		for _, d := range distinct(r.dirs) {
			if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("after Run.Close, stat %s: %v; want it gone", d, err)
			}
		}
	})
	return h, r
}

// v1PidsWritable reports whether /sys/fs/cgroup/pids is a v1 mount this
// process may write.
func v1PidsWritable() bool {
	var st unix.Statfs_t
	if unix.Statfs("/sys/fs/cgroup/pids", &st) != nil || st.Type != unix.CGROUP_SUPER_MAGIC {
		return false
	}
	return unix.Access("/sys/fs/cgroup/pids", unix.W_OK) == nil && st.Flags&unix.ST_RDONLY == 0
}

// startHeld starts sh -c script, held before its first command until the
// returned func lets it go, so the test can put it in a group before it
// forks.
func startHeld(t *testing.T, script string) (*exec.Cmd, func()) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "read go; "+script)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, func() {
		if _, err := io.WriteString(in, "go\n"); err != nil {
			t.Fatal(err)
		}
		_ = in.Close()
	}
}

func TestRealPidsMaxRefusesAFork(t *testing.T) {
	_, r := realRun(t)
	g, err := r.NewGroup("forks", Limits{PidsMax: 4})
	if err != nil {
		t.Fatal(err)
	}
	cmd, release := startHeld(t, "for i in 1 2 3 4 5 6 7 8; do sleep 5 & done; wait")
	if err := g.Join(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	release()
	deadline := time.Now().Add(10 * time.Second)
	for g.Killed() == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := g.Killed(); got != KilledPids {
		t.Errorf("Killed() = %q, want %q", got, KilledPids)
	}
	procs, err := g.Procs()
	if err != nil || len(procs) > 4 {
		t.Errorf("Procs() = %v, %v; want at most 4", procs, err)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_ = cmd.Wait()
	for _, d := range distinct(g.dirs) {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after Close, stat %s: %v; want it gone", d, err)
		}
	}
}

func TestRealMemoryLimitKills(t *testing.T) {
	_, r := realRun(t)
	g, err := r.NewGroup("balloon", Limits{MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	// tail keeps a line until its end: 300 MiB of zeros has none.
	cmd, release := startHeld(t, "head -c 300M /dev/zero | tail")
	if err := g.Join(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	release()
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGKILL) {
		t.Errorf("sh: %v; want exit status 137 (tail killed by SIGKILL)", err)
	}
	if got := g.Killed(); got != KilledMemory {
		t.Errorf("Killed() = %q, want %q", got, KilledMemory)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestRealCloseKillsWhatIsLeft(t *testing.T) {
	_, r := realRun(t)
	g, err := r.NewGroup("left", Limits{PidsMax: 16})
	if err != nil {
		t.Fatal(err)
	}
	cmd, release := startHeld(t, "sleep 60 & sleep 60 & wait")
	if err := g.Join(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	release()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if p, _ := g.Procs(); len(p) == 3 {
			break
		}
	}
	if p, err := g.Procs(); len(p) != 3 {
		t.Fatalf("Procs() = %v, %v; want sh and two sleeps", p, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("sh still running after Close")
	}
	if g.Killed() != "" {
		t.Errorf("Killed() after Close = %q, want \"\"", g.Killed())
	}
	for _, d := range distinct(g.dirs) {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after Close, stat %s: %v; want it gone", d, err)
		}
	}
}

// TestRealLimitsWritten reads the limits back from the kernel's files.
func TestRealLimitsWritten(t *testing.T) {
	h, r := realRun(t)
	wd, _ := os.Getwd()
	g, err := r.NewGroup("limits", Limits{MemoryBytes: 64 << 20, PidsMax: 9, CPUPercent: 150,
		IOBytesPerSec: 1 << 20, IODevice: wd})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	want := map[string]string{"pids/pids.max": "9"}
	if h.Version() == 2 {
		want["memory/memory.max"] = "67108864"
		want["cpu/cpu.max"] = "150000 100000"
	} else {
		want["memory/memory.limit_in_bytes"] = "67108864"
		want["cpu/cpu.cfs_quota_us"] = "150000"
		want["cpu/cpu.cfs_period_us"] = "100000"
	}
	if dev, ok := diskOf(mustDev(t, wd)); ok && g.dirs["io"] != "" {
		if h.Version() == 2 {
			want["io/io.max"] = dev + " rbps=1048576 wbps=1048576 riops=max wiops=max"
		} else {
			want["io/blkio.throttle.read_bps_device"] = dev + " 1048576"
			want["io/blkio.throttle.write_bps_device"] = dev + " 1048576"
		}
	}
	for k, w := range want {
		ctl, file, _ := strings.Cut(k, "/")
		b, err := os.ReadFile(filepath.Join(g.dirs[ctl], file))
		if got := strings.TrimSpace(string(b)); err != nil || got != w {
			t.Errorf("%s = %q, %v; want %q", file, got, err, w)
		}
	}
}

func mustDev(t *testing.T, path string) uint64 {
	d, ok := devOf(path)
	if !ok {
		t.Fatalf("stat %s", path)
	}
	return d
}

// TestRealHammer makes and closes groups from many goroutines at once,
// then closes the run while the groups still open are being closed by
// their own goroutines, and leaves nothing behind.
func TestRealHammer(t *testing.T) {
	_, r := realRun(t)
	errs := make(chan error, 8)
	open := make(chan *Group, 8*5)
	for w := range 8 {
		go func() {
			var err error
			for i := range 25 {
				g, gerr := r.NewGroup("w"+uitoa(uint64(w))+"-"+uitoa(uint64(i)), Limits{MemoryBytes: 1 << 30, PidsMax: 64, CPUPercent: 100})
				if gerr != nil {
					err = gerr
					break
				}
				_ = g.Killed()
				if i%5 == 4 { // every fifth stays open
					open <- g
					continue
				}
				if err = g.Close(); err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	close(open)
	if len(open) != 8*5 {
		t.Fatalf("%d groups open before Run.Close, want 40", len(open))
	}
	done := make(chan error, 8*5+1)
	go func() { done <- r.Close() }()
	for g := range open {
		go func() { done <- g.Close() }()
	}
	for range 8*5 + 1 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	// realRun's cleanup closes the run again and checks its folders are gone.
}

// TestRealCPUQuotaThrottles: a busy loop held to 1% of a CPU is throttled.
func TestRealCPUQuotaThrottles(t *testing.T) {
	_, r := realRun(t)
	g, err := r.NewGroup("busy", Limits{CPUPercent: 1})
	if err != nil {
		t.Fatal(err)
	}
	cmd, release := startHeld(t, "exec timeout 0.6 sh -c 'while :; do :; done'")
	if err := g.Join(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	release()
	_ = cmd.Wait()
	b, err := os.ReadFile(filepath.Join(g.dirs["cpu"], "cpu.stat"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := keyedValue(b, "nr_throttled"); n == 0 {
		t.Errorf("cpu.stat after 0.6 s of a busy loop at 1%%:\n%s\nwant nr_throttled > 0", b)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRealIOThrottle: direct reads of 1 MiB at 1 MiB/s take about 1 s
// (buffered I/O is not throttled on v1; RATIONALE.md).
func TestRealIOThrottle(t *testing.T) {
	_, r := realRun(t)
	if _, err := exec.LookPath("dd"); err != nil {
		t.Skip("no dd")
	}
	dir := t.TempDir()
	dev, ok := diskOf(mustDev(t, dir))
	if !ok {
		t.Skipf("%s is on no block device: no throttle to see", dir)
	}
	file := filepath.Join(dir, "one-mib")
	// Synced: dd's direct reads would first write back dirty pages, and
	// that write would be throttled too.
	f, err := os.Create(file)
	if err == nil {
		_, err = f.Write(make([]byte, 1<<20))
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	g, err := r.NewGroup("io", Limits{IOBytesPerSec: 1 << 20, IODevice: dir})
	if err != nil {
		t.Fatal(err)
	}
	if g.dirs["io"] == "" {
		t.Skip("no io controller here")
	}
	cmd, release := startHeld(t, "exec dd if="+file+" of=/dev/null bs=64k iflag=direct")
	if err := g.Join(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	release()
	if err := cmd.Wait(); err != nil {
		t.Skipf("dd with iflag=direct: %v (no O_DIRECT here)", err)
	}
	d := time.Since(start)
	if d < 700*time.Millisecond {
		t.Errorf("1 MiB read directly from %s at 1 MiB/s in %v, want about 1 s", dev, d)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
}
