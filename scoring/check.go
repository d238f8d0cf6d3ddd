package scoring

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Check command defaults.
const (
	// DefaultCheckTimeout bounds a check without its own timeout_seconds
	// when the run sets no --check-timeout.
	DefaultCheckTimeout = 5 * time.Minute
	// DefaultPATH is the check's PATH when the run gives none.
	DefaultPATH = "/usr/local/bin:/usr/bin:/bin"
	// checkLogMax caps logs/check.log; the rest of the output is dropped.
	checkLogMax = 1 << 20
	// checkWaitDelay is how long a check that exited (or was killed) may
	// keep its output pipes open through a leftover child.
	checkWaitDelay = 5 * time.Second
)

// CheckLog is where a check's output is kept, relative to the session folder.
const CheckLog = "logs/check.log"

// checkEnv is what a check runs with.
type checkEnv struct {
	dir       string // the session folder: the check's working directory
	caseID    string
	sessionID string
	path      string // PATH
	timeout   time.Duration
}

// runCheck runs the check command in the session folder, with an
// environment rebuilt from nothing (PATH, a HOME and TMPDIR inside the
// session folder, the case and session ids: no credentials), in its own
// process group, killed with everything it started when its time is up.
// stdout and stderr go to logs/check.log (at most 1 MiB).
//
// Exit 0 passes; another exit status or running out of time fails, with the
// last line of output in the reason. A command that cannot be started (not
// found, not executable) is an error of the dataset or the host, not the
// model's failure: it returns an error and no score.
//
// This is not a sandbox: the process sandbox (Landlock, rlimits) is a later
// issue, and the check will run inside it then (docs/expected.md).
func runCheck(ctx context.Context, spec CheckSpec, env checkEnv) (Score, error) {
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = env.timeout
	}
	home := filepath.Join(env.dir, ".check-home")
	tmp := filepath.Join(home, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return Score{}, errcode.Wrap(errcode.IO, err, "check: create its HOME")
	}
	if err := os.MkdirAll(filepath.Join(env.dir, "logs"), 0o755); err != nil {
		return Score{}, errcode.Wrap(errcode.IO, err, "check: create logs/")
	}
	logFile, err := os.Create(filepath.Join(env.dir, filepath.FromSlash(CheckLog)))
	if err != nil {
		return Score{}, errcode.Wrap(errcode.IO, err, "check: create %s", CheckLog)
	}
	defer logFile.Close()

	bin, err := lookPath(spec.Argv[0], env.path, env.dir)
	if err != nil {
		fmt.Fprintf(logFile, "murmur-eval: %v\n", err)
		return Score{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, spec.Argv[1:]...)
	cmd.Args[0] = spec.Argv[0]
	cmd.Dir = env.dir
	cmd.Env = []string{
		"PATH=" + env.path,
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"LANG=C.UTF-8",
		"MURMUR_CASE_ID=" + env.caseID,
		"MURMUR_SESSION_ID=" + env.sessionID,
	}
	out := &tailWriter{w: logFile, max: checkLogMax}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = checkWaitDelay
	ownProcessGroup(cmd)

	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(logFile, "murmur-eval: %v\n", err)
		return Score{}, errcode.Wrap(errcode.IO, err, "check: cannot start %q", spec.Argv[0])
	}
	werr := cmd.Wait()
	killProcessGroup(cmd)
	took := time.Since(start).Round(time.Millisecond)
	last := out.lastLine()
	fmt.Fprintf(logFile, "\nmurmur-eval: check %s after %s\n", describeExit(werr, ctx), took)

	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return passFail(TypeCheck, TypeCheck, false, withOutput(fmt.Sprintf("timed out after %s", timeout), last)), nil
	case werr == nil:
		return passFail(TypeCheck, TypeCheck, true, "exit status 0"), nil
	}
	var exitErr *exec.ExitError
	if errors.As(werr, &exitErr) {
		return passFail(TypeCheck, TypeCheck, false, withOutput(exitErr.ProcessState.String(), last)), nil
	}
	return passFail(TypeCheck, TypeCheck, false, withOutput(werr.Error(), last)), nil
}

func describeExit(err error, ctx context.Context) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "timed out"
	case err == nil:
		return "exited with status 0"
	}
	return "ended: " + err.Error()
}

func withOutput(reason, last string) string {
	if last == "" {
		return reason
	}
	return reason + ": " + truncate(last, 200)
}

// lookPath finds name on path the way a shell would, but in the check's
// PATH rather than murmur-eval's own. A name with a slash is relative to
// dir, the check's working directory.
func lookPath(name, path, dir string) (string, error) {
	notFound := func() error {
		return errcode.New(errcode.IONotFound, "check: command %q not found in PATH %s", name, path).
			WithHint("install it on the machine that runs murmur-eval, or give its absolute path")
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if isExecutable(p) {
			return p, nil
		}
		return "", notFound()
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue // a relative PATH entry would depend on the session's content
		}
		if p := filepath.Join(d, name); isExecutable(p) {
			return p, nil
		}
	}
	return "", notFound()
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// tailWriter writes to w until max bytes, then drops the rest, and keeps
// the last bytes seen for the reason. exec calls Write from one goroutine
// when stdout and stderr are the same writer.
type tailWriter struct {
	w       *os.File
	max     int
	written int
	dropped bool
	tail    []byte
}

const tailKeep = 4 << 10

func (t *tailWriter) Write(p []byte) (int, error) {
	if room := t.max - t.written; room > 0 {
		n, _ := t.w.Write(p[:min(len(p), room)]) // a log write error must not fail the check
		t.written += n
	}
	if t.written >= t.max && !t.dropped {
		t.dropped = true
		fmt.Fprintf(t.w, "\nmurmur-eval: output cut at %d bytes\n", t.max)
	}
	t.tail = append(t.tail, p...)
	if len(t.tail) > tailKeep {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-tailKeep:]...)
	}
	return len(p), nil
}

// lastLine is the last non-blank line of the output.
func (t *tailWriter) lastLine() string {
	lines := strings.Split(strings.TrimRight(string(t.tail), "\n\r\t "), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
