package launch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// subprocessBox is a toolbox with a shell tool (sh) and a native tool
// (greet, a script) in a fresh session, or skips on a host without the
// sandbox's kernel features.
func subprocessBox(t *testing.T, res capsule.Resources) (*toolbox, string) {
	t.Helper()
	host := sandbox.ProbeHost(context.Background())
	if !host.Landlock || !host.UserNS {
		t.Skip("host lacks Landlock or namespaces")
	}
	exe, _ := os.Executable()
	// The capsule's shell.allow: sh, and what its commands and the native
	// script run (only these may be executed).
	sp, err := sandbox.NewSpawner(exe, host, sandbox.SpawnerOptions{ShellAllow: []string{"sh", "env", "grep", "head", "id"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close() })
	root := t.TempDir()
	os.Chmod(root, 0o755)
	os.Chmod(filepath.Dir(root), 0o755)
	for _, d := range []string{"logs", ".capsule-home", "tools/greet"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\necho '{\"status\":\"passed\",\"summary\":\"ok\",\"data\":\"native ran as '$(id -u)'\"}'\n"
	if err := os.WriteFile(filepath.Join(root, "tools/greet/greet"), []byte(script), 0o555); err != nil {
		t.Fatal(err)
	}
	hostEnv := map[string]string{"PATH": "/usr/bin:/bin", "ANTHROPIC_API_KEY": "sk", "AWS_PROFILE": "p", "X_API_KEY": "k"}
	home := filepath.Join(root, ".capsule-home")
	return &toolbox{
		set: &verify.Toolset{Spawner: sp, Host: host, Tools: map[string]*verify.Tool{
			"sh": {Name: "sh", Shell: true}, "greet": {Name: "greet", Native: true}}},
		policy: &contain.Policy{Root: root, Deadline: 20 * time.Second, Resources: res, Isolate: true,
			ShellEnv:  sandbox.SubprocessEnv(hostEnv, []string{"MURMUR_SESSION_ID=ses_1"}, nil, nil, home),
			NativeEnv: sandbox.SubprocessEnv(hostEnv, nil, nil, nil, home)},
	}, root
}

func resources() capsule.Resources {
	return capsule.Resources{MaxProcesses: 64, MaxOpenFiles: 256, MaxFileSizeBytes: 1 << 30, CPUSeconds: 60,
		MemoryBytes: 2 << 30, WorkdirMaxBytes: 1 << 30}
}

func TestShellToolReplyAndEvent(t *testing.T) {
	tb, _ := subprocessBox(t, resources())
	reply, err := tb.Call(context.Background(), "sh", json.RawMessage(`{"command":"echo out; env | grep -c KEY; echo err >&2; exit 4"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "$ echo out; env | grep -c KEY; echo err >&2; exit 4\nExit code: 4\nStdout:\nout\n0\n\nStderr:\nerr\n"
	if reply.Text != want || reply.IsError {
		t.Errorf("reply %q (error %v), want %q", reply.Text, reply.IsError, want)
	}
	if reply.Shell == nil || reply.Shell.ExitCode != 4 || reply.Shell.Binary != "/usr/bin/sh" || reply.Shell.StdoutBytes != 6 {
		t.Errorf("shell event %+v", reply.Shell)
	}
	bad, _ := tb.Call(context.Background(), "sh", json.RawMessage(`{"cmd":"x"}`))
	if !bad.IsError || bad.Text != "shell command parsing failed" || bad.Shell != nil {
		t.Errorf("bad input reply %+v", bad)
	}
}

func TestNativeToolRunsUnprivileged(t *testing.T) {
	tb, _ := subprocessBox(t, resources())
	reply, err := tb.Call(context.Background(), "greet", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if reply.IsError || reply.Text != "native ran as 65534" && reply.Text != "native ran as "+strconv.Itoa(os.Getuid()) {
		t.Errorf("reply %+v", reply)
	}
}

func TestWorkdirGuardEndsTheCase(t *testing.T) {
	res := resources()
	res.WorkdirMaxBytes = 1 << 20
	tb, _ := subprocessBox(t, res)
	_, err := tb.Call(context.Background(), "sh", json.RawMessage(`{"command":"head -c 2000000 /dev/zero > big"}`))
	if errcode.Code(err) != errcode.RunWorkdirSize {
		t.Fatalf("err = %v, want E-RUN-013", err)
	}
}
