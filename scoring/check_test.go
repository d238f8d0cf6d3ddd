package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// fakeRunner stands in for the sandbox. By default it really runs the
// command (as the test's own user, with os/exec: enough to check what
// scoring hands the sandbox and how it judges the result); with result or
// err set it runs nothing and answers that, after writing out.
type fakeRunner struct {
	calls  []CheckProc
	result *CheckResult
	out    string
	err    error
}

func (r *fakeRunner) RunCheck(ctx context.Context, p CheckProc) (CheckResult, error) {
	r.calls = append(r.calls, p)
	if r.err != nil || r.result != nil {
		_, _ = io.WriteString(p.Output, r.out)
		if r.err != nil {
			return CheckResult{}, r.err
		}
		return *r.result, nil
	}
	cmd := exec.CommandContext(ctx, p.Path, p.Argv[1:]...)
	cmd.Args[0] = p.Argv[0]
	cmd.Dir, cmd.Env = p.SessionDir, p.Env
	cmd.Stdout, cmd.Stderr = p.Output, p.Output
	start := time.Now()
	err := cmd.Run()
	res := CheckResult{Duration: time.Since(start)}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	case err != nil:
		return CheckResult{}, err
	}
	return res, nil
}

// checkScore runs the check of expected (JSON) in a fresh session folder
// holding answer.txt, through r.
func checkScore(t *testing.T, expected string, r CheckRunner) (Score, string, error) {
	t.Helper()
	return checkScoreIn(t, t.TempDir(), expected, r)
}

func checkScoreIn(t *testing.T, dir, expected string, r CheckRunner) (Score, string, error) {
	t.Helper()
	e, ok, err := ParseExpected(json.RawMessage(expected))
	if err != nil || !ok || e.Check == nil {
		t.Fatalf("ParseExpected(%s): %v %v", expected, ok, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "answer.txt"), []byte("42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := runCheck(context.Background(), *e.Check, checkEnv{
		dir: dir, caseID: "case-1", sessionID: "ses_1", path: os.Getenv("PATH"), timeout: time.Minute, runner: r,
	})
	log, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(CheckLog)))
	return s, string(log), err
}

func TestCheckPassesAndFails(t *testing.T) {
	s, log, err := checkScore(t, `{"check": "grep -q 42 answer.txt && echo found it"}`, &fakeRunner{})
	if err != nil || !s.Pass || s.Value != 1 || s.Reason != "exit status 0" {
		t.Errorf("passing check = %+v, %v", s, err)
	}
	if !strings.Contains(log, "found it") || !strings.Contains(log, "murmur-eval: check exited with status 0 after ") {
		t.Errorf("check.log = %q, want the command's output and how it ended", log)
	}

	// stdout and stderr are one stream: the last line is the last written.
	s, log, err = checkScore(t, `{"check": ["sh", "-c", "echo first; echo 'assertion failed: 41 != 42' >&2; exit 3"]}`, &fakeRunner{})
	if err != nil || s.Pass || s.Value != 0 || s.Reason != "exit status 3: assertion failed: 41 != 42" {
		t.Errorf("failing check = %+v, %v; want exit status 3 with the last line", s, err)
	}
	if !strings.Contains(log, "first\nassertion failed") {
		t.Errorf("check.log = %q, want both streams in order", log)
	}
}

// TestCheckEndings: how each way a sandboxed check can end is scored.
func TestCheckEndings(t *testing.T) {
	tests := []struct {
		name   string
		result CheckResult
		pass   bool
		reason string
		log    string
	}{
		{"exit 0", CheckResult{}, true, "exit status 0", "check exited with status 0"},
		{"exit 1", CheckResult{ExitCode: 1}, false, "exit status 1: FAIL pkg", "check exited with status 1"},
		{"timeout", CheckResult{TimedOut: true, ExitCode: 137}, false, "timed out after 1m0s: FAIL pkg", "check timed out"},
		{"signal", CheckResult{ExitCode: 137, Signal: "killed"}, false, "signal: killed: FAIL pkg", "killed by signal: killed"},
		{"workdir", CheckResult{Stopped: "the session folder grew past workdir_max_bytes"}, false,
			"stopped: the session folder grew past workdir_max_bytes: FAIL pkg", "check stopped: the session folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, log, err := checkScore(t, `{"check": "go test ./..."}`, &fakeRunner{result: &tt.result, out: "ok\nFAIL pkg\n\n"})
			if err != nil || s.Pass != tt.pass || s.Reason != tt.reason {
				t.Errorf("score = %+v, %v; want pass=%v reason %q", s, err, tt.pass, tt.reason)
			}
			if !strings.Contains(log, tt.log) {
				t.Errorf("check.log = %q, want %q", log, tt.log)
			}
		})
	}
}

// TestCheckProcIsWhatTheSandboxGets: the environment rebuilt from nothing,
// HOME and TMPDIR inside the session, the binary resolved on the check's
// PATH, and extra exec rights only for a binary outside the session.
func TestCheckProcIsWhatTheSandboxGets(t *testing.T) {
	t.Setenv("MURMUR_TEST_SECRET_TOKEN", "hunter2")
	r := &fakeRunner{}
	dir := t.TempDir()
	s, log, err := checkScoreIn(t, dir, `{"check": {"command": "env; pwd", "timeout_seconds": 7}}`, r)
	if err != nil || !s.Pass {
		t.Fatalf("check = %+v, %v", s, err)
	}
	if strings.Contains(log, "hunter2") {
		t.Errorf("the check saw murmur-eval's environment:\n%s", log)
	}
	home := filepath.Join(dir, CheckHome)
	for _, want := range []string{"MURMUR_CASE_ID=case-1", "MURMUR_SESSION_ID=ses_1", "HOME=" + home, "TMPDIR=" + filepath.Join(home, "tmp"), "LANG=C.UTF-8"} {
		if !strings.Contains(log, want) {
			t.Errorf("check.log lacks %q:\n%s", want, log)
		}
	}
	p := r.calls[0]
	sh, _ := exec.LookPath("sh")
	if p.Path != sh || p.SessionDir != dir || p.Timeout != 7*time.Second || len(p.ExecFiles) != 1 || p.ExecFiles[0] != sh {
		t.Errorf("CheckProc = %+v, want sh at %s, the session folder, 7s, exec rights on sh", p, sh)
	}
	if st, err := os.Stat(filepath.Join(home, "tmp")); err != nil || !st.IsDir() {
		t.Errorf("TMPDIR not made: %v", err)
	}

	// A script of the session: found beneath it, no extra exec rights (the
	// session folder's own rule covers it).
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\necho script ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = &fakeRunner{}
	if s, log, err := checkScoreIn(t, dir, `{"check": ["./run.sh"]}`, r); err != nil || !s.Pass || !strings.Contains(log, "script ran") {
		t.Errorf("./run.sh: %+v, %v\n%s", s, err, log)
	}
	if p := r.calls[0]; p.Path != filepath.Join(dir, "run.sh") || len(p.ExecFiles) != 0 {
		t.Errorf("CheckProc = %+v, want the session's run.sh and no extra exec rights", p)
	}
}

func TestCheckThatCannotStartIsAnError(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(outside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, check := range []string{`["no-such-command-murmur-eval", "x"]`, `["./escape"]`, `["./plain.txt"]`, `["./missing"]`} {
		r := &fakeRunner{}
		_, log, err := checkScoreIn(t, dir, `{"check": `+check+`}`, r)
		if !errcode.Is(err, errcode.IONotFound) {
			t.Errorf("%s: %v, want code %s", check, err, errcode.IONotFound)
		}
		if len(r.calls) != 0 {
			t.Errorf("%s: the sandbox was asked to run %+v", check, r.calls)
		}
		if !strings.Contains(log, "not found") {
			t.Errorf("%s: check.log = %q, want the reason", check, log)
		}
	}
}

// TestCheckNeverRunsUnsandboxed: no runner, or a runner that cannot
// sandbox, is an error with its code, and nothing runs.
func TestCheckNeverRunsUnsandboxed(t *testing.T) {
	dir := t.TempDir()
	_, _, err := checkScoreIn(t, dir, `{"check": "touch ran"}`, nil)
	if !errcode.Is(err, errcode.Internal) {
		t.Errorf("no runner: %v, want %s", err, errcode.Internal)
	}
	refusal := errcode.New(errcode.CapEgressNamespace, "check: no user namespaces")
	_, log, err := checkScoreIn(t, dir, `{"check": "touch ran"}`, &fakeRunner{err: refusal})
	if !errcode.Is(err, errcode.CapEgressNamespace) {
		t.Errorf("refusing runner: %v, want %s", err, errcode.CapEgressNamespace)
	}
	if !strings.Contains(log, "no user namespaces") {
		t.Errorf("check.log = %q, want the refusal", log)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Errorf("the check ran")
	}
}

// TestCheckFilesAreNotFollowedOut: links a tool planted at logs/check.log,
// logs/ or .check-home/ never make murmur-eval write outside the session.
func TestCheckFilesAreNotFollowedOut(t *testing.T) {
	host := t.TempDir()
	victim := filepath.Join(host, "victim")
	if err := os.WriteFile(victim, []byte("host data"), 0o644); err != nil {
		t.Fatal(err)
	}
	plant := map[string]func(dir string) error{
		"check.log": func(dir string) error {
			if err := os.Mkdir(filepath.Join(dir, "logs"), 0o755); err != nil {
				return err
			}
			return os.Symlink(victim, filepath.Join(dir, "logs", "check.log"))
		},
		"logs":       func(dir string) error { return os.Symlink(host, filepath.Join(dir, "logs")) },
		"check-home": func(dir string) error { return os.Symlink(host, filepath.Join(dir, CheckHome)) },
	}
	for name, f := range plant {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := f(dir); err != nil {
				t.Fatal(err)
			}
			s, log, err := checkScoreIn(t, dir, `{"check": "echo checked"}`, &fakeRunner{})
			if err != nil || !s.Pass || !strings.Contains(log, "checked") {
				t.Errorf("check = %+v, %v, log %q", s, err, log)
			}
			if b, _ := os.ReadFile(victim); string(b) != "host data" {
				t.Errorf("the host file now holds %q", b)
			}
			if ents, _ := os.ReadDir(host); len(ents) != 1 {
				t.Errorf("the host folder holds %d entries, want only victim", len(ents))
			}
			if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(CheckLog))); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("check.log is not a fresh regular file: %v", err)
			}
		})
	}
}

func TestCheckOutputIsCapped(t *testing.T) {
	s, log, err := checkScore(t, `{"check": "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo last line"}`, &fakeRunner{})
	if err != nil || !s.Pass {
		t.Fatalf("check = %+v, %v", s, err)
	}
	if len(log) > checkLogMax+1024 || !strings.Contains(log, "output cut") || !strings.Contains(log, "x\nlast line\n") {
		t.Errorf("check.log is %d bytes, want at most about %d, a note that it was cut, and its end", len(log), checkLogMax)
	}
}

func TestCheckOutputKeepsHeadAndTail(t *testing.T) {
	const max = tailKeep + 10
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"empty", nil, ""},
		{"fits the head", []string{"abc", "def"}, "abcdef"},
		{"fits head and tail", []string{strings.Repeat("a", 10), "b", strings.Repeat("c", 100)}, strings.Repeat("a", 10) + "b" + strings.Repeat("c", 100)},
		{"exactly max", []string{strings.Repeat("a", max)}, strings.Repeat("a", max)},
		{"one past", []string{strings.Repeat("a", 10), "X", strings.Repeat("b", tailKeep)},
			strings.Repeat("a", 10) + "\nmurmur-eval: output cut: 1 bytes dropped after the first 10; the last 4096 follow\n" + strings.Repeat("b", tailKeep)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newCheckOutput(max)
			for _, w := range tt.writes {
				if n, err := o.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := string(o.bytes()); got != tt.want {
				t.Errorf("bytes() = %q…(%d bytes), want %d bytes", got[:min(len(got), 40)], len(got), len(tt.want))
			}
		})
	}
}

func TestLookPathUsesTheChecksPATH(t *testing.T) {
	bin := t.TempDir()
	tool := filepath.Join(bin, "mytool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := sessionfs.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if got, err := lookPath(root, "mytool", "relative/dir:"+bin); err != nil || got != tool {
		t.Errorf("lookPath = %q, %v; want %q", got, err, tool)
	}
	if _, err := lookPath(root, "mytool", "/usr/bin"); err == nil {
		t.Errorf("lookPath found mytool outside the given PATH")
	}
	if got, err := lookPath(root, "./mytool", ""); err != nil || got != tool {
		t.Errorf("lookPath(./mytool) = %q, %v; want %q (relative to the session folder)", got, err, tool)
	}
	if got, err := lookPath(root, tool, ""); err != nil || got != tool {
		t.Errorf("lookPath(absolute) = %q, %v; want %q", got, err, tool)
	}
}

// FuzzCheckOutput: whatever a check prints, in whatever pieces, the log is
// the whole output when it fits, and otherwise at most the cap plus a
// one-line note, starting with the output's start and ending with its end.
func FuzzCheckOutput(f *testing.F) {
	f.Add([]byte("hello\nworld\n"), uint8(3), uint16(100))
	f.Add(bytes.Repeat([]byte("x"), 9000), uint8(7), uint16(200))
	f.Fuzz(func(t *testing.T, data []byte, piece uint8, extra uint16) {
		max := tailKeep + int(extra)
		o := newCheckOutput(max)
		step := int(piece) + 1
		for i := 0; i < len(data); i += step {
			o.Write(data[i:min(len(data), i+step)])
		}
		got := o.bytes()
		if len(data) <= max {
			if !bytes.Equal(got, data) {
				t.Fatalf("output of %d bytes (cap %d) not kept whole", len(data), max)
			}
			return
		}
		if len(got) > max+200 || !bytes.HasPrefix(got, data[:max-tailKeep]) || !bytes.HasSuffix(got, data[len(data)-tailKeep:]) {
			t.Fatalf("cut output of %d bytes (cap %d): %d bytes, head or tail lost", len(data), max, len(got))
		}
	})
}
