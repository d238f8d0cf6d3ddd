package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// filesCapsule is a capsule whose only tools are shell binaries, with a
// workdir ceiling the deep-tree case goes past.
var filesCapsule = shellCapsuleManifest("escape-files", `capabilities:
  shell:
    allow: [bash, sh, ln, mkfifo, rm, head, tr, mkdir]
  limits:
    deadline_seconds: 20
  resources:
    max_file_size_bytes: 1048576
    workdir_max_bytes: 1500000
`)

// TestSessionFilesCannotReachTheHost is findings 1, 6 and 7 of issue 13
// through the real binary: bash tools leave links to a host file and a
// host folder at out/result.txt, out/, logs/ and eval.jsonl, FIFOs at
// eval.jsonl, out/result.txt and an expected file, and a tree deeper than
// PATH_MAX holding more than workdir_max_bytes. murmur-eval (root, when the
// tests run as root) then writes the answer, the shell log and the scores:
// no host file may change or appear, the run must end well within its
// timeout, the deep tree must be E-RUN-013, and a plain case passes.
func TestSessionFilesCannotReachTheHost(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	e2eBinary(t)

	// Shell tools run as an unprivileged user who must reach the run
	// folder; the host folder is root's, so only murmur-eval could write it.
	base, err := os.MkdirTemp("", "escape-files-")
	if err != nil {
		t.Fatal(err)
	}
	// The deep tree is past what os.RemoveAll's descriptors reach.
	t.Cleanup(func() { _ = exec.Command("rm", "-rf", base).Run() })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(base, "host")
	secret := filepath.Join(host, "secret")
	if err := os.Mkdir(host, 0o755); err != nil {
		t.Fatal(err)
	}
	const secretText = "host file, not the session's\n"
	if err := os.WriteFile(secret, []byte(secretText), 0o644); err != nil {
		t.Fatal(err)
	}

	deep := `d=` + strings.Repeat("d", 100) + `; for ((i=0; i<60; i++)); do mkdir $d && cd $d || exit 9; done; ` +
		`head -c 900000 /dev/zero > f1; head -c 900000 /dev/zero > f2; echo deep`
	cases := []struct {
		id, command string // command: the bash tool call, "" for none
		expected    map[string]any
	}{
		{"plain", "", nil},
		{"result-link", "rm -f out/result.txt && ln -s " + secret + " out/result.txt && echo planted", nil},
		{"out-link", "rm -rf out && ln -s " + host + " out && echo planted", nil},
		{"logs-link", `rm -rf logs && ln -s ` + host + ` logs && head -c 100000 /dev/zero | tr '\0' a`, nil},
		{"eval-link", "ln -s " + filepath.Join(host, "eval.jsonl") + " eval.jsonl && echo planted", nil},
		{"eval-hostfile-link", "ln -s " + secret + " eval.jsonl && echo planted", nil},
		{"fifos", "mkfifo eval.jsonl out/pipe && rm -f out/result.txt && mkfifo out/result.txt && echo planted",
			map[string]any{"result_contains": "done", "files": map[string]any{"out/pipe": true}}},
		{"deep-tree", deep, nil},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(filesCapsule), 0o644); err != nil {
		t.Fatal(err)
	}
	var sc []scripted
	for _, tc := range cases {
		expected := tc.expected
		if expected == nil {
			expected = map[string]any{"result_contains": "done"} // so eval.jsonl is written
		}
		sc = append(sc, scripted{id: tc.id, expected: expected, calls: bash(tc.command)})
	}
	writeScripted(t, dir, sc)

	out := filepath.Join(base, "run")
	const budget = 2 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	cmd := newFixture(t, dir).start(ctx, out,
		"--workers", "2", "--timeout", "60s")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the run did not finish within %s (a FIFO blocked it?)\nstderr:\n%s", budget, stderr.String())
	}
	if err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			t.Fatal(err)
		}
		t.Logf("exit %d after %s (failed cases make it non-zero)", exitErr.ExitCode(), time.Since(start))
	}

	if b, err := os.ReadFile(secret); err != nil || string(b) != secretText {
		t.Errorf("host file %s = %q, %v; want it unchanged", secret, b, err)
	}
	if des, _ := os.ReadDir(host); len(des) != 1 {
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		t.Errorf("host folder holds %v; want only secret", names)
	}

	byCase := resultsByCase(t, out)
	session := func(id string) string {
		return filepath.Join(out, filepath.FromSlash(fmt.Sprint(byCase[id]["session_dir"])))
	}
	// The attacks really ran: each planting command exited 0.
	for _, tc := range cases {
		if tc.command == "" || tc.id == "deep-tree" {
			continue
		}
		_, shell := toolEvents(t, filepath.Join(session(tc.id), "trace.jsonl"))
		if shell == nil || shell["exit_code"] != float64(0) {
			t.Errorf("case %s: shell event %v; want the planting command to have run and exited 0", tc.id, shell)
		}
	}
	for _, id := range []string{"plain", "result-link", "out-link", "logs-link", "eval-link", "eval-hostfile-link"} {
		row := byCase[id]
		if row["status"] != "passed" {
			t.Errorf("case %s: status %v (%v %v), want passed", id, row["status"], row["error_code"], row["error_message"])
		}
		for _, name := range []string{"out/result.txt", "eval.jsonl"} {
			p := filepath.Join(session(id), filepath.FromSlash(name))
			if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("case %s: %s is %v, %v; want a regular file made fresh", id, name, fi, err)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(session(id), "out", "result.txt")); string(b) != "done" {
			t.Errorf("case %s: out/result.txt = %q, want done", id, b)
		}
	}
	if logs, _ := filepath.Glob(filepath.Join(session("logs-link"), "logs", "shell-*.log")); len(logs) != 1 {
		t.Errorf("case logs-link: logs/shell-*.log = %v, want the truncated call's log in a fresh logs/", logs)
	}
	if row := byCase["fifos"]; row["status"] != "failed" {
		t.Errorf("case fifos: status %v (%v %v), want failed (out/pipe is not a regular file)", row["status"], row["error_code"], row["error_message"])
	}
	if fi, err := os.Lstat(filepath.Join(session("fifos"), "eval.jsonl")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("case fifos: eval.jsonl is %v, %v; want a regular file made fresh", fi, err)
	}
	if row := byCase["deep-tree"]; row["error_code"] != "E-RUN-013" {
		t.Errorf("case deep-tree: status %v, error_code %v (%v); want E-RUN-013", row["status"], row["error_code"], row["error_message"])
	}
}
