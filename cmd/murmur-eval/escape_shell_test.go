//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// shellEscapeCapsule is a capsule whose only tools are bash and attack, a
// static program (sandbox/testdata/attack) that tries one escape and prints
// ALLOWED or DENIED <errno>.
var shellEscapeCapsule = shellCapsuleManifest("shell-escape", `capabilities:
  shell:
    allow: [bash, attack]
%s
trace:
  include_tool_output: true
`)

// TestShellToolsAreContainedAsMurmurContainsThem runs, through the real
// binary, shell tools that try what murmur's containment forbids: executing
// a binary outside shell.allow, the system calls murmur's seccomp policy
// denies, a host socket file, an abstract socket of the host, System V
// shared memory that outlives the call, set-user-ID files. Every attempt is
// refused where murmur refuses it, a plain case passes next to them, and
// nothing is left on the host (no shared memory, no set-ID file, no
// launcher folder).
func TestShellToolsAreContainedAsMurmurContainsThem(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	base := reachableTempDir(t)
	binDir := filepath.Join(base, "bin")
	if err := goBuild(moduleRoot(t), []string{"CGO_ENABLED=0"}, "-o", filepath.Join(binDir, "attack"), "./sandbox/testdata/attack"); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(binDir, 0o755)

	// A world-writable host socket file and a host abstract socket.
	sockPath := filepath.Join(base, "x.sock")
	listenE2E(t, sockPath)
	_ = os.Chmod(sockPath, 0o777)
	abstract := fmt.Sprintf("murmur-eval-e2e-%d", os.Getpid())
	listenE2E(t, "@"+abstract)
	shmKey := 0x6d750000 + os.Getpid()%0xffff

	type escape struct {
		id, tool, command, want string // want: a line the tool's stdout must hold
	}
	closed := []escape{
		{"plain", "bash", "echo ok > out.txt && echo written", "written"},
		{"exec-ls", "bash", "ls / || echo refused $?", "refused 126"},
		{"pipe-to-cat", "bash", "echo hi | cat; echo status ${PIPESTATUS[1]}", "status 126"},
		{"ptrace", "attack", "ptrace", "DENIED EPERM"},
		{"unshare", "attack", "unshare", "DENIED EPERM"},
		{"mount", "attack", "mount", "DENIED EPERM"},
		{"keyctl", "attack", "keyctl", "DENIED EPERM"},
		{"io-uring", "attack", "io_uring_setup", "DENIED EPERM"},
		{"bpf", "attack", "bpf", "DENIED EPERM"},
		{"host-socket", "attack", "connect-unix " + sockPath, "DENIED EPERM"},
		{"abstract-socket", "attack", "connect-abstract " + abstract, "DENIED EPERM"},
		{"shm", "attack", fmt.Sprintf("shmget-create %d", shmKey), "ALLOWED"},
		{"setuid", "attack", "chmod-suid suid", "DENIED EPERM"},
		{"setuid-open", "attack", "open-suid suid2", "DENIED EPERM"},
	}
	// With a non-empty network.allow the call still has a network
	// namespace of its own (served by the egress proxy), so the host's
	// abstract sockets are not there at all, even when unix_sockets lets
	// the tool make AF_UNIX sockets (Landlock's scoping would refuse them
	// as well).
	open := []escape{
		{"plain", "bash", "echo ok", "ok"},
		{"abstract-socket", "attack", "connect-abstract " + abstract, "DENIED ECONNREFUSED"},
		{"shm-next-call", "attack", fmt.Sprintf("shmget-find %d", shmKey), "DENIED ENOENT"},
	}
	if h := landlockABI(); h < 6 {
		open = open[:1]
		t.Logf("Landlock ABI %d: no abstract socket scoping to test", h)
	}
	launchersBefore, _ := filepath.Glob(filepath.Join(os.TempDir(), "murmur-eval-launcher-*"))

	for _, run := range []struct {
		name, caps string
		cases      []escape
	}{
		{"isolated", "", closed},
		{"network-allow", "  network:\n    allow: [\"example.com\"]\n    unix_sockets: true", open},
	} {
		t.Run(run.name, func(t *testing.T) {
			dir := filepath.Join(base, run.name)
			if err := os.MkdirAll(filepath.Join(dir, "recordings"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(fmt.Sprintf(shellEscapeCapsule, run.caps)), 0o644); err != nil {
				t.Fatal(err)
			}
			var cases []adversarialCase
			for _, e := range run.cases {
				cases = append(cases, adversarialCase{id: e.id, tool: e.tool, input: map[string]any{"command": e.command}})
			}
			writeAdversarialCases(t, dir, cases)
			out := filepath.Join(base, run.name+"-run")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := newFixture(t, dir).start(ctx, out,
				"--workers", "2", "--timeout", "60s")
			for i, kv := range cmd.Env {
				if strings.HasPrefix(kv, "PATH=") {
					cmd.Env[i] = "PATH=" + binDir + ":/usr/bin:/bin"
				}
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
			}
			byCase := resultsByCase(t, out)
			for _, e := range run.cases {
				row := byCase[e.id]
				if row["status"] != "passed" {
					t.Errorf("case %s: status %v (%v), want passed", e.id, row["status"], row["error_message"])
					continue
				}
				sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
				call, shell := toolEvents(t, filepath.Join(sdir, "trace.jsonl"))
				if call == nil || shell == nil {
					t.Errorf("case %s: tool_call %v, shell %v: the command never ran", e.id, call, shell)
					continue
				}
				output := fmt.Sprint(call["output"])
				if _, stdout, _ := strings.Cut(output, "Stdout:\n"); !strings.Contains(stdout, e.want+"\n") {
					t.Errorf("case %s: %s %q said:\n%s\nwant %q", e.id, e.tool, e.command, output, e.want)
				}
			}
			if _, err := os.Stat(filepath.Join(out, ".launcher")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the run left its launcher folder: %v", err)
			}
			_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if st, err := os.Lstat(p); err == nil && st.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
					t.Errorf("%s is %v", p, st.Mode())
				}
				return nil
			})
		})
	}

	// The segment the "shm" case made died with its call's IPC namespace.
	if id, err := unix.SysvShmGet(shmKey, 0, 0); !errors.Is(err, unix.ENOENT) {
		t.Errorf("the host sees the tool's shared memory (id %d, %v)", id, err)
		if err == nil {
			_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		}
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "murmur-eval-launcher-*"))
	if len(after) > len(launchersBefore) {
		t.Errorf("launcher folders in %s: %v (before: %v)", os.TempDir(), after, launchersBefore)
	}
}

func listenE2E(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("unix", addr)
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
			c.Write([]byte("host\n"))
			c.Close()
		}
	}()
}

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}
