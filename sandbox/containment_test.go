package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/capsule"
)

// attackBin builds testdata/attack once per test binary: a static program
// that tries one escape and prints ALLOWED or DENIED <errno>.
var attackBin = sync.OnceValues(func() (string, error) {
	// testRoot (removed by TestMain) must be searchable by the tool user.
	if err := os.Chmod(testRoot, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(testRoot, "attack")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/attack")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build attack: %v\n%s", err, out)
	}
	return bin, nil
})

func attack(t *testing.T) string {
	t.Helper()
	bin, err := attackBin()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// spawnerWith is a test Spawner with the given options.
func spawnerWith(t *testing.T, opts SpawnerOptions) *Spawner {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSpawner(exe, testHost(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runAttack runs the attack binary with args in dir and returns its
// verdict line.
func runAttack(t *testing.T, s *Spawner, dir string, isolate bool, args ...string) string {
	t.Helper()
	bin := attack(t)
	r, err := s.Run(context.Background(), Proc{Path: bin, Argv: append([]string{"attack"}, args...), Dir: dir, SessionDir: dir,
		Resources: defaultResources(), Isolate: isolate, CapsuleGrants: true, Env: []string{"PATH=/usr/bin:/bin"},
		Deadline: 20 * time.Second, MaxOutput: 16 << 10})
	if err != nil {
		t.Fatalf("attack %v: %v", args, err)
	}
	return strings.TrimSpace(string(r.Stdout)) + strings.TrimSpace(string(r.Stderr))
}

func TestOnlyTheAllowlistAndItsClosureMayBeExecuted(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	s := spawnerWith(t, SpawnerOptions{ShellAllow: []string{"bash"}})
	run := func(cmd string) *ProcResult {
		r, err := s.Run(context.Background(), Proc{Path: "/bin/bash", Argv: []string{"bash", "-c", cmd}, Dir: dir, SessionDir: dir,
			Resources: defaultResources(), Isolate: true, CapsuleGrants: true, Env: []string{"PATH=/usr/bin:/bin"},
			Deadline: 20 * time.Second, MaxOutput: 16 << 10})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// bash itself runs: its ELF interpreter is executable, its libraries
	// (libtinfo, libc) load with read access only.
	if r := run("echo hi"); string(r.Stdout) != "hi\n" || r.ExitCode != 0 {
		t.Fatalf("bash: stdout %q stderr %q exit %d", r.Stdout, r.Stderr, r.ExitCode)
	}
	// A nested bash is the allowlisted binary again: allowed.
	if r := run("bash -c 'echo nested'"); string(r.Stdout) != "nested\n" {
		t.Errorf("nested bash: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	// Anything else is refused by the kernel, by name or by path.
	for _, cmd := range []string{"ls / | grep x", "/usr/bin/ls /", "cat /dev/null", "env", "/usr/bin/python3 -c 1"} {
		r := run(cmd)
		if r.ExitCode == 0 || !strings.Contains(string(r.Stderr), "Permission denied") {
			t.Errorf("%s: exit %d stdout %q stderr %q, want Permission denied", cmd, r.ExitCode, r.Stdout, r.Stderr)
		}
	}
	// ExecSystemDirs (a dataset's check) makes every system binary executable.
	r, err := s.Run(context.Background(), Proc{Path: "/bin/bash", Argv: []string{"bash", "-c", "ls -d / | cat"}, Dir: dir, SessionDir: dir,
		Resources: defaultResources(), Isolate: true, ExecSystemDirs: true, Env: []string{"PATH=/usr/bin:/bin"},
		Deadline: 20 * time.Second, MaxOutput: 16 << 10})
	if err != nil || string(r.Stdout) != "/\n" {
		t.Errorf("ExecSystemDirs: ls | cat: %v stdout %q stderr %q", err, r.Stdout, r.Stderr)
	}
	// A binary copied into the session cannot run either (no workdir_exec).
	if err := copyFile("/usr/bin/ls", filepath.Join(dir, "myls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := run("./myls"); r.ExitCode != 126 {
		t.Errorf("./myls: exit %d stderr %q, want 126", r.ExitCode, r.Stderr)
	}
}

func TestAMemfdCannotBeExecuted(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	s := spawnerWith(t, SpawnerOptions{})
	if got := runAttack(t, s, dir, true, "memfd-exec", "/usr/bin/true"); !strings.HasPrefix(got, "DENIED") {
		t.Errorf("memfd exec: %s, want DENIED", got)
	}
	if got := runAttack(t, s, dir, true, "exec", "/usr/bin/ls"); got != "DENIED EACCES" {
		t.Errorf("exec /usr/bin/ls: %s, want DENIED EACCES", got)
	}
}

func TestSeccompDeniesKernelAttackSurface(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	s := spawnerWith(t, SpawnerOptions{})
	bin := attack(t)
	for _, action := range []string{"ptrace", "unshare", "clone-newuser", "mount", "keyctl", "add_key", "io_uring_setup", "bpf", "perf_event_open"} {
		t.Run(action, func(t *testing.T) {
			got := runAttack(t, s, dir, true, action)
			if got != "DENIED EPERM" {
				t.Errorf("in the sandbox: %s, want DENIED EPERM", got)
			}
			// Outside the sandbox, the calls that an unprivileged process
			// may make succeed: the denial above is the filter's.
			if action == "ptrace" || action == "mount" || action == "bpf" || action == "perf_event_open" {
				return
			}
			out, _ := exec.Command(bin, action).Output()
			t.Logf("on the host: %s", strings.TrimSpace(string(out)))
		})
	}
}

func TestUnixSocketsFollowUnixSocketsGrant(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	// A world-writable host socket file, as a host daemon might leave.
	sockDir, err := os.MkdirTemp("", "sandbox-sock-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	_ = os.Chmod(sockDir, 0o755)
	path := filepath.Join(sockDir, "x.sock")
	ln := listen(t, "unix", path)
	_ = os.Chmod(path, 0o777)
	abstract := fmt.Sprintf("murmur-eval-test-%d", os.Getpid())
	listen(t, "unix", "@"+abstract)
	_ = ln

	closed := spawnerWith(t, SpawnerOptions{})
	for _, isolate := range []bool{true, false} {
		if got := runAttack(t, closed, dir, isolate, "connect-unix", path); got != "DENIED EPERM" {
			t.Errorf("unix_sockets false, isolate %v: connect %s: %s, want DENIED EPERM", isolate, path, got)
		}
		if got := runAttack(t, closed, dir, isolate, "connect-abstract", abstract); got != "DENIED EPERM" {
			t.Errorf("unix_sockets false, isolate %v: connect @%s: %s, want DENIED EPERM", isolate, abstract, got)
		}
	}
	// socketpair makes a connected pair that reaches nothing: allowed.
	if got := runAttack(t, closed, dir, true, "socketpair"); got != "ALLOWED" {
		t.Errorf("socketpair: %s, want ALLOWED", got)
	}

	// unix_sockets: true is murmur's grant of AF_UNIX: a pathname socket the
	// tool can reach by path is reachable; an abstract one of the host is
	// not, with or without a network namespace (Landlock ABI 6 scoping,
	// or the namespace's own abstract socket table).
	open := spawnerWith(t, SpawnerOptions{UnixSockets: true})
	if got := runAttack(t, open, dir, true, "connect-unix", path); got != "ALLOWED" {
		t.Errorf("unix_sockets true: connect %s: %s, want ALLOWED", path, got)
	}
	for _, isolate := range []bool{true, false} {
		got := runAttack(t, open, dir, isolate, "connect-abstract", abstract)
		if testHost().LandlockABI < 6 && !isolate {
			t.Logf("Landlock ABI %d has no scoping: abstract socket %s", testHost().LandlockABI, got)
			continue
		}
		if !strings.HasPrefix(got, "DENIED") {
			t.Errorf("unix_sockets true, isolate %v: connect @%s: %s, want DENIED", isolate, abstract, got)
		}
	}
}

func listen(t *testing.T, network, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln
}

func TestSysVSharedMemoryIsPrivateToACall(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	s := spawnerWith(t, SpawnerOptions{})
	key := fmt.Sprint(0x6d757200 + os.Getpid()%256)
	if got := runAttack(t, s, dir, false, "shmget-create", key); got != "ALLOWED" {
		t.Fatalf("shmget create in the call: %s", got)
	}
	if got := runAttack(t, s, dir, false, "shmget-find", key); got != "DENIED ENOENT" {
		t.Errorf("the next call found the segment: %s, want DENIED ENOENT", got)
	}
	var k int
	fmt.Sscan(key, &k)
	if id, err := unix.SysvShmGet(k, 0, 0); !errors.Is(err, unix.ENOENT) {
		t.Errorf("the host sees the segment (id %d, err %v)", id, err)
		if err == nil {
			_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		}
	}
}

func TestSetIDBitsCannotBeSet(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	s := spawnerWith(t, SpawnerOptions{})
	for _, action := range []string{"chmod-suid", "open-suid", "mknod-suid"} {
		if got := runAttack(t, s, dir, true, action, action); got != "DENIED EPERM" {
			t.Errorf("%s: %s, want DENIED EPERM", action, got)
		}
	}
	if got := runAttack(t, s, dir, true, "chmod-plain", "plain"); got != "ALLOWED" {
		t.Errorf("chmod 0700: %s, want ALLOWED", got)
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			if st, err := os.Lstat(p); err == nil && st.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				t.Errorf("%s has mode %v", p, st.Mode())
			}
		}
		return nil
	})
}

// TestLauncherFolderStaysInTheRunFolder kills a process holding a Spawner
// with SIGKILL: its launcher copy is in the run folder, none in /tmp, and
// the next Spawner on that folder replaces it.
func TestLauncherFolderStaysInTheRunFolder(t *testing.T) {
	if os.Getenv("SANDBOX_TEST_HOLD_SPAWNER") != "" {
		exe, _ := os.Executable()
		if _, err := NewSpawner(exe, Host{}, SpawnerOptions{RunDir: os.Getenv("SANDBOX_TEST_HOLD_SPAWNER")}); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ready")
		time.Sleep(time.Minute)
		return
	}
	run := t.TempDir()
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "murmur-eval-launcher-*"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestLauncherFolderStaysInTheRunFolder$")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_HOLD_SPAWNER="+run)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "ready") {
		cmd.Process.Kill()
		t.Fatalf("helper said %q", buf[:n])
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "murmur-eval-launcher-*"))
	if len(after) > len(before) {
		t.Errorf("launcher folders in %s: %v, before %v", os.TempDir(), after, before)
	}
	if _, err := os.Stat(filepath.Join(run, launcherDirName, "murmur-eval")); err != nil {
		t.Errorf("the killed run's launcher is not in its run folder: %v", err)
	}
	s, err := NewSpawner(exe, Host{}, SpawnerOptions{RunDir: run})
	if err != nil {
		t.Fatalf("a new Spawner on the folder: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(run, launcherDirName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Close left %s: %v", launcherDirName, err)
	}
}

func copyFile(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, mode)
}

// TestInterpreterRuntimeGrantMakesAFolderExecutable: an
// interpreter_runtime folder outside the system folders is readable and
// executable with the grant, and invisible without it.
func TestInterpreterRuntimeGrantMakesAFolderExecutable(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	rt, err := os.MkdirTemp("", "sandbox-runtime-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(rt)
	_ = os.Chmod(rt, 0o755)
	if err := copyFile("/usr/bin/true", filepath.Join(rt, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		grant []capsule.InterpreterGrant
		want  int
	}{
		{nil, 126},
		{[]capsule.InterpreterGrant{{Binary: "sh", Dirs: []capsule.InterpreterDir{{Path: rt}}}}, 0},
	} {
		s := spawnerWith(t, SpawnerOptions{ShellAllow: []string{"sh"}, InterpreterRuntime: tc.grant})
		r, err := s.Run(context.Background(), Proc{Path: "/bin/sh", Argv: []string{"sh", "-c", filepath.Join(rt, "tool")}, Dir: dir, SessionDir: dir,
			Resources: defaultResources(), Isolate: true, CapsuleGrants: true, Env: []string{"PATH=/usr/bin:/bin"},
			Deadline: 20 * time.Second, MaxOutput: 16 << 10})
		if err != nil {
			t.Fatal(err)
		}
		if r.ExitCode != tc.want {
			t.Errorf("grant %v: exit %d stderr %q, want %d", tc.grant, r.ExitCode, r.Stderr, tc.want)
		}
	}
}

// TestHardLinkFromOutsideTheSessionIsRefused: a tool cannot hard-link a
// host file into its session (where murmur-eval's own reads, or a WASM
// guest running as root, would then reach it), even one the tool user
// owns, which fs.protected_hardlinks allows: Landlock refuses a link whose
// source lies outside the rules granting LANDLOCK_ACCESS_FS_REFER.
func TestHardLinkFromOutsideTheSessionIsRefused(t *testing.T) {
	requireSandbox(t)
	dir, sibling := sessionDir(t)
	src := filepath.Join(sibling, "secret.txt")
	if err := os.Chown(src, subprocessUID(), subprocessUID()); err != nil {
		t.Fatal(err)
	}
	s := spawnerWith(t, SpawnerOptions{})
	if got := runAttack(t, s, dir, true, "link", src); got != "DENIED EXDEV" {
		t.Errorf("link %s into the session: %s, want DENIED EXDEV (Landlock)", src, got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "linked")); err == nil {
		t.Error("the link exists")
	}
	// Control: a link inside the session works.
	if err := os.WriteFile(filepath.Join(dir, "own.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(dir, "own.txt"), subprocessUID(), subprocessUID()); err != nil {
		t.Fatal(err)
	}
	if got := runAttack(t, s, dir, true, "link", "own.txt"); got != "ALLOWED" {
		t.Errorf("link own.txt inside the session: %s, want ALLOWED", got)
	}
}
