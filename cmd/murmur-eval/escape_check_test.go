package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// checkCapsule is a capsule with nothing but shell tools (bash may run
// mkdir; everything else the tool does is a bash builtin).
var checkCapsule = shellCapsuleManifest("check-escape", `capabilities:
  shell:
    allow: [bash, sh, mkdir]
trace:
  include_tool_output: true
`)

// TestCheckCannotEscapeTheSession is finding 3 of issue 13 through the real
// binary: a bash tool plants json/__init__.py in its session, and the
// dataset's check runs python3 -m json.tool there. The planted code may run,
// but sandboxed: as the tool user, unable to write a host folder anyone may
// write. Next to it a check that passes still passes and one that fails
// still fails with its last line, in the same run.
func TestCheckCannotEscapeTheSession(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	python := tooltest.RequirePython(t)
	t.Parallel()
	e2eBinary(t)

	// The check's user must reach the run folder and the host folder (so
	// only the sandbox stops the write): t.TempDir is private.
	base, err := os.MkdirTemp("", "escape-check-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	hostDir := filepath.Join(base, "host")
	for _, d := range []string{base, hostDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(hostDir, "pwned")

	planted := fmt.Sprintf(`import os
print("planted uid=%%d" %% os.getuid(), flush=True)
try:
    open(%q, "w").write("pwned")
    print("PLANTED-WROTE-HOST", flush=True)
except OSError as e:
    print("planted write refused:", e, flush=True)
`, marker)
	plant := "mkdir -p json && printf '%s' " + shellQuote(planted) + " > json/__init__.py && echo '{\"a\": 1}' > out.json && echo planted"

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(checkCapsule), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		id, command string // command: the bash tool call, "" for none
		expected    map[string]any
	}{
		{"planted-module", plant, map[string]any{"check": python + " -m json.tool out.json"}},
		{"passing-check", "echo 42 > answer.txt", map[string]any{"check": "grep -qx 42 answer.txt && echo found"}},
		{"failing-check", "", map[string]any{"check": []string{"sh", "-c", "echo first; echo 'expected 42, got 41' >&2; exit 1"}}},
	}
	var sc []scripted
	for _, tc := range cases {
		sc = append(sc, scripted{id: tc.id, expected: tc.expected, calls: bash(tc.command)})
	}
	writeScripted(t, dir, sc)

	out := filepath.Join(base, "run")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := newFixture(t, dir).start(ctx, out,
		"--workers", "2", "--timeout", "60s", "--check-timeout", "30s")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			t.Fatal(err)
		}
		// Failed cases make a non-zero exit; the rows say what happened.
		t.Logf("exit %d\nstderr:\n%s", exitErr.ExitCode(), stderr.String())
	}

	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the planted module wrote %s on the host", marker)
	}
	byCase := resultsByCase(t, out)
	checkLog := func(id string) string {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(fmt.Sprint(byCase[id]["session_dir"])), filepath.FromSlash(scoring.CheckLog)))
		if err != nil {
			t.Errorf("case %s: %v", id, err)
		}
		return string(b)
	}
	checkScore := func(id string) map[string]any {
		for _, s := range readParquet(t, filepath.Join(out, "scores.parquet")).Rows {
			if s["case_id"] == id && s["scorer"] == "check" {
				return s
			}
		}
		t.Errorf("case %s: no check score (status %v, %v)", id, byCase[id]["status"], byCase[id]["error_message"])
		return nil
	}

	// The attack was really attempted: the bash call planted the module.
	sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(byCase["planted-module"]["session_dir"])))
	if call, shell := toolEvents(t, filepath.Join(sdir, "trace.jsonl")); shell == nil || shell["exit_code"] != float64(0) {
		t.Fatalf("the bash tool did not plant the module: %v\n%v", call, shell)
	}
	if _, err := os.Stat(filepath.Join(sdir, "json", "__init__.py")); err != nil {
		t.Fatalf("no planted module: %v", err)
	}
	log := checkLog("planted-module")
	if !strings.Contains(log, "planted uid=") {
		t.Errorf("the planted module did not run (the check should import it):\n%s", log)
	}
	if strings.Contains(log, "PLANTED-WROTE-HOST") {
		t.Errorf("the planted module wrote on the host:\n%s", log)
	}
	wantUID := os.Getuid()
	if wantUID == 0 {
		wantUID = 65534
	}
	if strings.Contains(log, "planted uid=") && !strings.Contains(log, "planted uid="+strconv.Itoa(wantUID)+"\n") {
		t.Errorf("the planted module ran as another uid than the tool user's %d:\n%s", wantUID, log)
	}
	if wantUID != 0 && strings.Contains(log, "planted uid=0\n") {
		t.Errorf("the planted module ran as root:\n%s", log)
	}
	t.Logf("planted-module: status %v; check.log:\n%s", byCase["planted-module"]["status"], log)

	if row := byCase["passing-check"]; row["status"] != "passed" {
		t.Errorf("passing-check: status %v (%v), want passed\ncheck.log:\n%s", row["status"], row["error_message"], checkLog("passing-check"))
	}
	if row := byCase["failing-check"]; row["status"] != "failed" {
		t.Errorf("failing-check: status %v (%v), want failed", row["status"], row["error_message"])
	}
	if s := checkScore("failing-check"); s != nil && (s["result"] != "fail" || s["reason"] != "exit status 1: expected 42, got 41") {
		t.Errorf("failing-check score %v, want a failure with the last line", s)
	}
	if l := checkLog("failing-check"); !strings.Contains(l, "first\nexpected 42, got 41\n") {
		t.Errorf("failing-check check.log = %q, want both streams in order", l)
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestCommandsNeedAReachableRunFolder: as root, dataset checks run as an
// unprivileged user; a run folder that user cannot reach (below a 0700
// folder) is refused before any case starts, with E-IO-002 naming the
// folder and exit 2, and --out is left empty for another try.
func TestCommandsNeedAReachableRunFolder(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root's commands run as another user")
	}
	qs := quickstart(t)
	t.Parallel()
	private := t.TempDir() // 0700
	out := filepath.Join(private, "run")
	r := newFixture(t, qs).runInto(out)
	if r.code != exitUsage || !hasCode(r.stderr, errcode.IOPermission) || !strings.Contains(r.stderr, private) {
		t.Fatalf("exit %d, want %d with %s naming %s\nstderr:\n%s", r.code, exitUsage, errcode.IOPermission, private, r.stderr)
	}
	if des, _ := os.ReadDir(out); len(des) != 0 {
		t.Errorf("--out holds %d entries after the refusal, want none", len(des))
	}
	// A selection without checks needs no reachable folder.
	r = newFixture(t, qs).runInto(filepath.Join(private, "run2"), "--filter", "calc-*")
	if r.code != exitOK {
		t.Errorf("calc-* only: exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
}
