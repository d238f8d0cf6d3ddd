package scoring

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// checkScore runs the check of expected (JSON) in a fresh session folder.
func checkScore(t *testing.T, expected string, timeout time.Duration) (Score, string, error) {
	t.Helper()
	e, ok, err := ParseExpected(json.RawMessage(expected))
	if err != nil || !ok || e.Check == nil {
		t.Fatalf("ParseExpected(%s): %v %v", expected, ok, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "answer.txt"), []byte("42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := runCheck(context.Background(), *e.Check, checkEnv{
		dir: dir, caseID: "case-1", sessionID: "ses_1", path: os.Getenv("PATH"), timeout: timeout,
	})
	log, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(CheckLog)))
	return s, string(log), err
}

func TestCheckPassesAndFails(t *testing.T) {
	s, log, err := checkScore(t, `{"check": "grep -q 42 answer.txt && echo found it"}`, time.Minute)
	if err != nil || !s.Pass || s.Value != 1 || s.Reason != "exit status 0" {
		t.Errorf("passing check = %+v, %v", s, err)
	}
	if !strings.Contains(log, "found it") {
		t.Errorf("check.log = %q, want the command's output", log)
	}

	s, _, err = checkScore(t, `{"check": ["sh", "-c", "echo first; echo 'assertion failed: 41 != 42' >&2; exit 3"]}`, time.Minute)
	if err != nil || s.Pass || s.Value != 0 || s.Reason != "exit status 3: assertion failed: 41 != 42" {
		t.Errorf("failing check = %+v, %v; want exit status 3 with the last line", s, err)
	}
}

func TestCheckEnvironmentIsRebuilt(t *testing.T) {
	t.Setenv("MURMUR_TEST_SECRET_TOKEN", "hunter2")
	s, log, err := checkScore(t, `{"check": "env; pwd"}`, time.Minute)
	if err != nil || !s.Pass {
		t.Fatalf("check = %+v, %v", s, err)
	}
	if strings.Contains(log, "hunter2") {
		t.Errorf("the check saw murmur-eval's environment:\n%s", log)
	}
	for _, want := range []string{"MURMUR_CASE_ID=case-1", "MURMUR_SESSION_ID=ses_1", "HOME=", ".check-home", "TMPDIR="} {
		if !strings.Contains(log, want) {
			t.Errorf("check.log lacks %q:\n%s", want, log)
		}
	}
}

func TestCheckTimesOutWithItsChildren(t *testing.T) {
	start := time.Now()
	// The shell starts a background sleeper that holds the output pipe: the
	// whole process group must die at the deadline.
	s, log, err := checkScore(t, `{"check": {"command": "sleep 30 & echo started; sleep 30", "timeout_seconds": 0.3}}`, time.Minute)
	took := time.Since(start)
	if err != nil || s.Pass || !strings.HasPrefix(s.Reason, "timed out after 300ms") {
		t.Errorf("slow check = %+v, %v; want a failure that it timed out", s, err)
	}
	if took > 10*time.Second {
		t.Errorf("the check took %s to stop, want the timeout plus a little", took)
	}
	if !strings.Contains(log, "timed out") {
		t.Errorf("check.log = %q, want it to say the check timed out", log)
	}
}

func TestCheckThatCannotStartIsAnError(t *testing.T) {
	_, log, err := checkScore(t, `{"check": ["no-such-command-murmur-eval", "x"]}`, time.Minute)
	if !errcode.Is(err, errcode.IONotFound) {
		t.Errorf("unknown command: %v, want code %s", err, errcode.IONotFound)
	}
	if !strings.Contains(log, "not found") {
		t.Errorf("check.log = %q, want the reason", log)
	}
}

func TestCheckOutputIsCapped(t *testing.T) {
	s, log, err := checkScore(t, `{"check": "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo last line"}`, time.Minute)
	if err != nil || !s.Pass {
		t.Fatalf("check = %+v, %v", s, err)
	}
	if len(log) > checkLogMax+1024 || !strings.Contains(log, "output cut") {
		t.Errorf("check.log is %d bytes, want at most about %d and a note that it was cut", len(log), checkLogMax)
	}
}

func TestLookPathUsesTheChecksPATH(t *testing.T) {
	bin := t.TempDir()
	tool := filepath.Join(bin, "mytool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := lookPath("mytool", "relative/dir:"+bin, "/"); err != nil || got != tool {
		t.Errorf("lookPath = %q, %v; want %q", got, err, tool)
	}
	if _, err := lookPath("mytool", "/usr/bin", "/"); err == nil {
		t.Errorf("lookPath found mytool outside the given PATH")
	}
	if got, err := lookPath("./mytool", "", bin); err != nil || got != tool {
		t.Errorf("lookPath(./mytool) = %q, %v; want %q (relative to the session folder)", got, err, tool)
	}
}
