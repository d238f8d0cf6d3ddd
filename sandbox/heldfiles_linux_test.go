package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/cgroup"
)

// TestHeldFilesCountsDeletedOpenAndMappedFiles: a deleted file this process
// still has open, and one it only maps, count by their blocks, once each
// however many descriptors and mappings lead to them; a memfd (memory, not
// the session's disk) and a file that still has a name do not.
func TestHeldFilesCountsDeletedOpenAndMappedFiles(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) *os.File {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	held := open("held")
	if _, err := held.Write(make([]byte, 3<<20)); err != nil {
		t.Fatal(err)
	}
	dup, err := os.Open(held.Name()) // a second descriptor to the same file
	if err != nil {
		t.Fatal(err)
	}
	defer dup.Close()
	kept := open("kept") // still named: the walk counts it, not heldFiles
	if _, err := kept.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	mapped := open("mapped")
	if err := mapped.Truncate(2 << 20); err != nil {
		t.Fatal(err)
	}
	mem, err := unix.Mmap(int(mapped.Fd()), 0, 2<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	for i := 0; i < len(mem); i += 4096 {
		mem[i] = 1 // allocates the sparse file's blocks through the mapping
	}
	mapped.Close()
	memfd, err := unix.MemfdCreate("held-test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(memfd)
	if _, err := unix.Write(memfd, make([]byte, 4<<20)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"held", "mapped"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := heldFiles([]int{os.Getpid()}, sessionDevs(dir), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := Held{Bytes: 3 << 20, Files: 1}
	if os.Geteuid() == 0 { // map_files needs CAP_SYS_ADMIN
		want = Held{Bytes: 5 << 20, Files: 2}
	}
	// A file system may allocate a little more than the bytes written.
	if h.Files != want.Files || h.Bytes < want.Bytes || h.Bytes > want.Bytes+want.Bytes/8 {
		t.Errorf("heldFiles = %+v, want %+v", h, want)
	}
	if h, err := heldFiles([]int{os.Getpid()}, nil, []string{t.TempDir()}); err != nil || h != (Held{}) {
		t.Errorf("heldFiles(another device and folder) = %+v, %v; want nothing", h, err)
	}
}

// TestDescendantsFollowsTheTree: a child's child is the call's too, and a
// process that has ended is not.
func TestDescendantsFollowsTheTree(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	grandchild, err := strconv.Atoi(string(buf[:max(n-1, 0)]))
	if err != nil {
		t.Fatalf("grandchild pid %q: %v", buf[:n], err)
	}
	t.Cleanup(func() { _ = unix.Kill(grandchild, unix.SIGKILL) })
	pids, err := descendants(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pids, cmd.Process.Pid) || !slices.Contains(pids, grandchild) {
		t.Errorf("descendants(%d) = %v, want it and %d", cmd.Process.Pid, pids, grandchild)
	}
	if pids, err := descendants(1 << 30); err != nil || len(pids) != 0 {
		t.Errorf("descendants(no such process) = %v, %v; want none", pids, err)
	}
}

// heldSpawner is testSpawner whose tools may also run rm.
func heldSpawner(t *testing.T, cgroups *cgroup.Run) *Spawner {
	t.Helper()
	return spawnerWith(t, SpawnerOptions{ShellAllow: append(testShellAllow(), "rm"), Cgroups: cgroups})
}

// TestWorkdirGuardCountsDeletedFilesAToolHolds: a tool that deletes its
// files but keeps them open (from a child process, too) is stopped when
// their blocks pass workdir_max_bytes, though its folder stays empty.
func TestWorkdirGuardCountsDeletedFilesAToolHolds(t *testing.T) {
	requireSandbox(t)
	// The call's processes are found below the launcher, or read from its
	// cgroup when it has one.
	for _, tc := range []struct {
		name    string
		cgroups func(*testing.T) *cgroup.Run
	}{
		{"process tree", func(*testing.T) *cgroup.Run { return nil }},
		{"cgroup", func(t *testing.T) *cgroup.Run { return testCgroupRun(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := sessionDir(t)
			res := defaultResources()
			res.WorkdirMaxBytes = 4 << 20
			script := "exec 3>a 4>b && rm a b && head -c 3000000 /dev/zero >&3 && " +
				"(head -c 3000000 /dev/zero >&4; exec sleep 20) & sleep 20"
			start := time.Now()
			_, err := heldSpawner(t, tc.cgroups(t)).Run(context.Background(), Proc{Path: "/bin/sh", Argv: []string{"sh", "-c", script},
				Dir: dir, SessionDir: dir, Resources: res, Isolate: true, CapsuleGrants: true,
				Env: []string{"PATH=/usr/bin:/bin"}, Deadline: 15 * time.Second, MaxOutput: 1024})
			wantCode(t, err, errcode.RunWorkdirSize)
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("stopped after %v", took)
			}
			if n := DirSize(dir); n >= res.WorkdirMaxBytes {
				t.Errorf("the folder holds %d bytes: the named files alone were past the limit", n)
			}
		})
	}
}
