package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// testHost is probed once for the test binary.
var testHost = sync.OnceValue(func() Host { return ProbeHost(context.Background()) })

func testSpawner(t testing.TB) *Spawner {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSpawner(exe, testHost(), SpawnerOptions{ShellAllow: testShellAllow()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// testShellAllow is the shell.allow of the tests' capsule: the shells and
// the commands the tests run through them (nothing else may be executed).
func testShellAllow() []string {
	return []string{"sh", "bash", "cat", "ls", "env", "sleep", "head", "tr", "true"}
}

func defaultResources() capsule.Resources {
	return capsule.Resources{MaxProcesses: 128, MaxOpenFiles: 1024, MaxFileSizeBytes: 1 << 30,
		CPUSeconds: 60, MemoryBytes: 2 << 30, WorkdirMaxBytes: 1 << 30}
}

// sessionDir makes a session folder like Stage does, under a parent that
// also holds a sibling session with a secret.
func sessionDir(t *testing.T) (dir, sibling string) {
	t.Helper()
	root := t.TempDir()
	dir, sibling = filepath.Join(root, "ses_a"), filepath.Join(root, "ses_b")
	for _, d := range []string{filepath.Join(dir, "logs"), filepath.Join(dir, ".capsule-home"), sibling} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sibling, "secret.txt"), []byte("other case"), 0o644); err != nil {
		t.Fatal(err)
	}
	// t.TempDir is 0700 for root: let the subprocess user walk to its session.
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o755)
	}
	return dir, sibling
}

// shell runs command with sh in dir under res.
func shell(t *testing.T, dir, bin, command string, res capsule.Resources, isolate bool, host map[string]string) (*ProcResult, error) {
	t.Helper()
	if host == nil {
		host = map[string]string{"PATH": "/usr/bin:/bin"}
	}
	argv, err := ShellArgv(bin, command)
	if err != nil {
		t.Fatal(err)
	}
	path := "/bin/" + bin
	return testSpawner(t).Run(context.Background(), Proc{
		Path: path, Argv: argv, Dir: dir, SessionDir: dir, Resources: res, Isolate: isolate, CapsuleGrants: true,
		Env:       SubprocessEnv(host, []string{"MURMUR_SESSION_ID=ses_a"}, nil, nil, filepath.Join(dir, ".capsule-home")),
		Deadline:  20 * time.Second,
		MaxOutput: 16 << 10,
		LogPath:   filepath.Join(dir, "logs", "shell-1.log"),
		LogHeader: "$ " + command + "\n",
	})
}

func requireSandbox(t testing.TB) Host {
	t.Helper()
	h := testHost()
	if !h.Landlock || !h.UserNS {
		t.Skipf("host lacks Landlock or namespaces: %s %s", h.LandlockReason, h.UserNSReason)
	}
	return h
}

func TestShellRunsAndWritesItsSession(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	r, err := shell(t, dir, "sh", "echo hi > out.txt && cat out.txt && echo err >&2 && exit 3", defaultResources(), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Stdout); got != "hi\n" || r.ExitCode != 3 || string(r.Stderr) != "err\n" {
		t.Fatalf("stdout %q stderr %q exit %d, want hi, err, 3", got, r.Stderr, r.ExitCode)
	}
}

func TestShellSeesNoHostFiles(t *testing.T) {
	requireSandbox(t)
	dir, sibling := sessionDir(t)
	for _, cmd := range []string{"cat /etc/passwd", "cat " + filepath.Join(sibling, "secret.txt"), "ls " + sibling, "ls /root", "ls /tmp"} {
		r, err := shell(t, dir, "sh", cmd, defaultResources(), true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.ExitCode == 0 || !strings.Contains(string(r.Stderr), "Permission denied") {
			t.Errorf("%s: exit %d stdout %q stderr %q, want Permission denied", cmd, r.ExitCode, r.Stdout, r.Stderr)
		}
	}
}

func TestShellNeverSeesCredentials(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	host := map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/root", "ANTHROPIC_API_KEY": "sk-1",
		"AWS_SECRET_ACCESS_KEY": "a", "MY_API_KEY": "k", "LANG": "C"}
	r, err := shell(t, dir, "sh", "env", defaultResources(), true, host)
	if err != nil {
		t.Fatal(err)
	}
	env := string(r.Stdout)
	for _, bad := range []string{"ANTHROPIC_API_KEY", "AWS_", "MY_API_KEY", "HOME=/root"} {
		if strings.Contains(env, bad) {
			t.Errorf("env contains %s:\n%s", bad, env)
		}
	}
	if !strings.Contains(env, "HOME="+filepath.Join(dir, ".capsule-home")) || !strings.Contains(env, "MURMUR_SESSION_ID=ses_a") {
		t.Errorf("env lacks the synthetic HOME or MURMUR_SESSION_ID:\n%s", env)
	}
}

func TestShellCannotReachTheNetwork(t *testing.T) {
	requireSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	dir, _ := sessionDir(t)
	cmd := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	for _, tc := range []struct {
		isolate bool
		want    string
	}{{true, ""}, {false, "connected\n"}} {
		r, err := shell(t, dir, "bash", cmd, defaultResources(), tc.isolate, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Stdout) != tc.want {
			t.Errorf("isolate=%v: stdout %q stderr %q exit %d, want %q", tc.isolate, r.Stdout, r.Stderr, r.ExitCode, tc.want)
		}
	}
}

func TestForkBombStopsAtTheProcessLimit(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	res := defaultResources()
	res.MaxProcesses = 16
	start := time.Now()
	r, err := shell(t, dir, "sh", "i=0; while [ $i -lt 1000 ]; do sleep 30 & i=$((i+1)); done; echo survived", res, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 2 || !strings.Contains(string(r.Stderr), "Cannot fork") || strings.Contains(string(r.Stdout), "survived") {
		t.Fatalf("exit %d stdout %q stderr %q, want sh's 2 and Cannot fork", r.ExitCode, r.Stdout, r.Stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v: the sleeps outlived their shell", took)
	}
}

func TestDiskFillerStopsAtTheFileSizeLimit(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	res := defaultResources()
	res.MaxFileSizeBytes = 1 << 20
	r, err := shell(t, dir, "sh", "head -c 10000000 /dev/zero > big", res, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(filepath.Join(dir, "big"))
	if r.ResourceLimit != "max_file_size_bytes" || st == nil || st.Size() > 1<<20 {
		t.Fatalf("exit %d limit %q size %v, want SIGXFSZ at 1 MiB (stderr %q)", r.ExitCode, r.ResourceLimit, st, r.Stderr)
	}
}

func TestHugeOutputIsTruncatedAndLogged(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	r, err := shell(t, dir, "sh", "head -c 100000 /dev/zero | tr '\\0' x", defaultResources(), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || len(r.Stdout) != 16<<10 {
		t.Fatalf("truncated %v, kept %d bytes, want true and 16384", r.Truncated, len(r.Stdout))
	}
	log, err := os.ReadFile(filepath.Join(dir, "logs", "shell-1.log"))
	_, out, _ := strings.Cut(string(log), "Stdout:\n")
	if err != nil || strings.Count(out, "x") != 100000 {
		t.Fatalf("log holds %d x (err %v), want 100000", strings.Count(out, "x"), err)
	}
}

func TestSubprocessDeadline(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	start := time.Now()
	_, err := testSpawner(t).Run(context.Background(), Proc{Path: "/bin/sh", Argv: []string{"sh", "-c", "while :; do :; done"},
		Dir: dir, SessionDir: dir, Resources: defaultResources(), Isolate: true, Deadline: 300 * time.Millisecond, MaxOutput: 1024})
	wantCode(t, err, errcode.RunCapsule)
	wantKind(t, err, ErrDeadline)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
}

func TestWorkdirGuardStopsADiskFiller(t *testing.T) {
	requireSandbox(t)
	dir, _ := sessionDir(t)
	res := defaultResources()
	res.WorkdirMaxBytes = 4 << 20
	_, err := shell(t, dir, "sh", "i=0; while :; do head -c 1000000 /dev/zero > f$i; i=$((i+1)); done", res, true, nil)
	wantCode(t, err, errcode.RunWorkdirSize)
}
