package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestCheckWorkdirBeyondPathMax: bytes below a path longer than PATH_MAX
// count against workdir_max_bytes (a walk by path stopped at them).
func TestCheckWorkdirBeyondPathMax(t *testing.T) {
	dir := t.TempDir()
	t.Cleanup(func() { _ = exec.Command("rm", "-rf", dir).Run() }) // os.RemoveAll needs a descriptor per level
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	seg := strings.Repeat("p", 200)
	for range 100 { // 20,100 bytes of path
		if err := unix.Mkdirat(fd, seg, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, seg, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_ = unix.Close(fd)
		fd = next
	}
	f, err := unix.Openat(fd, "fill", unix.O_CREAT|unix.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(f, make([]byte, 2<<20)); err != nil {
		t.Fatal(err)
	}
	_ = unix.Close(f)
	_ = unix.Close(fd)
	if err := CheckWorkdir(dir, 1<<20); !errcode.Is(err, errcode.RunWorkdirSize) {
		t.Errorf("CheckWorkdir(2 MiB below PATH_MAX, limit 1 MiB) = %v, want E-RUN-013", err)
	}
	if err := CheckWorkdir(dir, 4<<20); err != nil {
		t.Errorf("CheckWorkdir(limit 4 MiB) = %v, want nil", err)
	}
	if err := CheckWorkdir(filepath.Join(dir, "missing"), 1); err != nil {
		t.Errorf("CheckWorkdir(missing folder) = %v, want nil", err)
	}
}

// TestWriteLogReplacesLinks: a shell log is created fresh where a tool
// left a link to a host file or replaced logs/ by a link to a host folder.
func TestWriteLogReplacesLinks(t *testing.T) {
	top := t.TempDir()
	sess, host := filepath.Join(top, "sess"), filepath.Join(top, "host")
	for _, d := range []string{sess, host} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(host, "secret")
	if err := os.WriteFile(secret, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(sess, "logs")); err != nil {
		t.Fatal(err)
	}
	out, errs := newSpill(4), newSpill(4)
	_, _ = out.Write([]byte("stdout that is long"))
	defer out.discard()
	defer errs.discard()
	for _, name := range []string{"secret", "shell-1.log"} {
		if err := writeLog(filepath.Join(sess, "logs", name), "$ x\n", out, errs); err != nil {
			t.Fatalf("writeLog(logs/%s) = %v", name, err)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "keep" {
		t.Errorf("host file = %q, want it unchanged", b)
	}
	if des, _ := os.ReadDir(host); len(des) != 1 {
		t.Errorf("host folder holds %d entries, want 1", len(des))
	}
	if b, err := os.ReadFile(filepath.Join(sess, "logs", "shell-1.log")); err != nil || !strings.Contains(string(b), "stdout that is long") {
		t.Errorf("log = %q, %v", b, err)
	}
}

// TestCheckSessionBoundsTheFileCount: past WorkdirMaxFiles entries (empty
// files and folders count) is E-RUN-013; 0 is no bound.
func TestCheckSessionBoundsTheFileCount(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := os.WriteFile(filepath.Join(dir, "sub", strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		max  uint64
		code string
	}{{100, errcode.RunWorkdirSize}, {101, ""}, {0, ""}} {
		err := CheckSession(dir, capsule.Resources{WorkdirMaxFiles: tc.max})
		if got := errcode.Code(err); got != tc.code {
			t.Errorf("CheckSession(101 entries, max files %d) = %v, want code %q", tc.max, err, tc.code)
		}
	}
}

// TestWorkdirGuardStopsAFileFiller: a tool creating empty files without end
// is stopped at WorkdirMaxFiles while it runs.
func TestWorkdirGuardStopsAFileFiller(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	res := defaultResources()
	res.WorkdirMaxFiles = 2000
	_, err := testSpawner(t).Run(context.Background(), Proc{Path: "/bin/sh", Argv: []string{"sh", "-c", "i=0; while :; do : > f$i; i=$((i+1)); done"},
		Dir: dir, SessionDir: dir, Resources: res, Isolate: true, CapsuleGrants: true,
		Env: []string{"PATH=/usr/bin:/bin"}, Deadline: 20 * time.Second, MaxOutput: 1024})
	wantCode(t, err, errcode.RunWorkdirSize)
	if err := CheckSession(dir, res); !errcode.Is(err, errcode.RunWorkdirSize) {
		t.Errorf("CheckSession after the stop = %v, want E-RUN-013", err)
	}
}
