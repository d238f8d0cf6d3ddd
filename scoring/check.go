package scoring

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// Check command defaults.
const (
	// DefaultCheckTimeout bounds a check without its own timeout_seconds
	// when the run sets no --check-timeout.
	DefaultCheckTimeout = 5 * time.Minute
	// DefaultPATH is the check's PATH when the run gives none.
	DefaultPATH = "/usr/local/bin:/usr/bin:/bin"
	// checkLogMax caps logs/check.log; past it the middle of the output is
	// dropped and its end kept.
	checkLogMax = 1 << 20
)

// CheckLog is where a check's output is kept, relative to the session folder.
const CheckLog = "logs/check.log"

// CheckHome is the check's HOME, relative to the session folder; its TMPDIR
// is CheckHome/tmp.
const CheckHome = ".check-home"

// CheckRunner runs a check command inside the sandbox shell tools run in
// (tool uid, Landlock, namespaces, rlimits). Package scoring only prepares
// the command and judges what it did; the runner is supplied by the caller
// (the Report stage), so that scoring itself never starts a process and
// needs no Linux-only code.
type CheckRunner interface {
	// RunCheck runs p to its end or its Timeout. A check that ran and
	// failed, or ran out of time, is a CheckResult, not an error; errors
	// are the sandbox's set-up failures (a host that cannot sandbox the
	// check, a launcher that failed) and the caller's context ending.
	RunCheck(ctx context.Context, p CheckProc) (CheckResult, error)
}

// CheckProc is one check command to run.
type CheckProc struct {
	Path string   // absolute path of the binary, found on the check's PATH
	Argv []string // argv[0] as the dataset wrote it
	Env  []string // the whole environment
	// SessionDir is the working directory and the one folder the check may
	// write.
	SessionDir string
	// ExecFiles are files outside the system folders the check must be
	// allowed to execute: the resolved binary when it lives elsewhere.
	ExecFiles []string
	Timeout   time.Duration
	// Output receives stdout and stderr both, as one stream.
	Output io.Writer
}

// CheckResult is how a check that ran ended.
type CheckResult struct {
	ExitCode int    // exit status, or 128+signal
	Signal   string // the signal that killed it ("killed"), "" when it exited
	TimedOut bool   // stopped at its Timeout
	// Stopped says why the sandbox stopped it otherwise (the session folder
	// grew past workdir_max_bytes); "" when it did not.
	Stopped  string
	Duration time.Duration
}

// checkEnv is what a check runs with.
type checkEnv struct {
	dir       string // the session folder: the check's working directory
	caseID    string
	sessionID string
	path      string // PATH
	timeout   time.Duration
	runner    CheckRunner
}

// runCheck runs the check command in the session folder through the
// sandbox (env.runner), with an environment rebuilt from nothing (PATH, a
// HOME and TMPDIR inside the session folder, the case and session ids: no
// credentials). Its output, interleaved, is kept in memory (at most about
// 1 MiB: the start and the end) and written by murmur-eval to
// logs/check.log, created fresh beneath the session folder (sessionfs): the
// session is the tool's, and a link planted there is replaced, never
// written through.
//
// Exit 0 passes; another exit status or running out of time fails, with the
// last line of output in the reason. A command that cannot be started (not
// found, not executable, or no sandbox to start it in) is an error of the
// dataset or the host, not the model's failure: it returns an error and no
// score.
func runCheck(ctx context.Context, spec CheckSpec, env checkEnv) (Score, error) {
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = env.timeout
	}
	root, err := sessionfs.Open(env.dir)
	if err != nil {
		return Score{}, err
	}
	defer root.Close()
	out := newCheckOutput(checkLogMax)
	// failed keeps err's reason in the log too; err, not a log write
	// error, is what the case ends with.
	failed := func(err error) (Score, error) {
		fmt.Fprintf(out, "murmur-eval: %v\n", err)
		_ = writeCheckLog(root, out, "")
		return Score{}, err
	}
	if env.runner == nil {
		return failed(errcode.New(errcode.Internal, "check: no sandbox was given to run it in"))
	}
	home := filepath.Join(env.dir, CheckHome)
	if err := root.MkdirAll(filepath.Join(CheckHome, "tmp"), 0o755); err != nil {
		return Score{}, errcode.WrapKeep(errcode.IO, err, "check: create its HOME")
	}
	bin, err := lookPath(root, spec.Argv[0], env.path)
	if err != nil {
		return failed(err)
	}
	var execFiles []string
	if !within(env.dir, bin) {
		execFiles = []string{bin}
	}
	res, err := env.runner.RunCheck(ctx, CheckProc{
		Path: bin, Argv: spec.Argv, SessionDir: env.dir, ExecFiles: execFiles,
		Env: []string{
			"PATH=" + env.path,
			"HOME=" + home,
			"TMPDIR=" + filepath.Join(home, "tmp"),
			"LANG=C.UTF-8",
			"MURMUR_CASE_ID=" + env.caseID,
			"MURMUR_SESSION_ID=" + env.sessionID,
		},
		Timeout: timeout, Output: out,
	})
	if err != nil {
		return failed(err)
	}
	last := out.lastLine()
	var s Score
	switch {
	case res.TimedOut:
		s = passFail(TypeCheck, TypeCheck, false, withOutput(fmt.Sprintf("timed out after %s", timeout), last))
	case res.Stopped != "":
		s = passFail(TypeCheck, TypeCheck, false, withOutput("stopped: "+res.Stopped, last))
	case res.Signal != "":
		s = passFail(TypeCheck, TypeCheck, false, withOutput("signal: "+res.Signal, last))
	case res.ExitCode == 0:
		s = passFail(TypeCheck, TypeCheck, true, "exit status 0")
	default:
		s = passFail(TypeCheck, TypeCheck, false, withOutput(fmt.Sprintf("exit status %d", res.ExitCode), last))
	}
	footer := fmt.Sprintf("\nmurmur-eval: check %s after %s\n", describeEnd(res), res.Duration.Round(time.Millisecond))
	if err := writeCheckLog(root, out, footer); err != nil {
		return Score{}, err
	}
	return s, nil
}

// writeCheckLog writes logs/check.log fresh (a planted link or FIFO at the
// name is replaced, never followed).
func writeCheckLog(root *sessionfs.Root, out *checkOutput, footer string) error {
	if err := root.WriteFile(CheckLog, append(out.bytes(), footer...), 0o644); err != nil {
		return errcode.WrapKeep(errcode.IO, err, "check: write %s", CheckLog)
	}
	return nil
}

func describeEnd(r CheckResult) string {
	switch {
	case r.TimedOut:
		return "timed out"
	case r.Stopped != "":
		return "stopped: " + r.Stopped
	case r.Signal != "":
		return "killed by signal: " + r.Signal
	}
	return fmt.Sprintf("exited with status %d", r.ExitCode)
}

// withOutput is reason with the check's last line of output, cut to 200
// runes and escaped (escapeLine): a check may print colours, a carriage
// return or a bidi override, which must not reach a terminal, summary.md
// or junit.xml as they are.
func withOutput(reason, last string) string {
	if last == "" {
		return reason
	}
	return reason + ": " + escapeLine(truncate(last, 200))
}

// within reports whether p is dir or beneath it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(rel) || rel == "."
}

// LookPath finds a dataset command's binary as a check's is found (see
// lookPath): the setup command uses it too.
func LookPath(root *sessionfs.Root, name, path string) (string, error) {
	return lookPath(root, name, path)
}

// lookPath finds name on path the way a shell would, but in the check's
// PATH rather than murmur-eval's own; relative PATH entries are skipped (they
// would depend on the session's content). A name with a slash and no
// leading "/" is a file of the session folder, looked up beneath it (a link
// out of the folder is not followed).
func lookPath(root *sessionfs.Root, name, path string) (string, error) {
	notFound := func() error {
		return errcode.New(errcode.IONotFound, "check: command %q not found in PATH %s", name, path).
			WithHint("install it on the machine that runs murmur-eval, or give its absolute path")
	}
	if strings.Contains(name, "/") {
		if filepath.IsAbs(name) {
			if isExecutable(name) {
				return filepath.Clean(name), nil
			}
			return "", notFound()
		}
		f, err := root.OpenRead(name)
		if err != nil {
			return "", notFound()
		}
		fi, err := f.Stat()
		_ = f.Close()
		if err != nil || fi.Mode().Perm()&0o111 == 0 {
			return "", notFound()
		}
		return filepath.Join(root.Dir(), filepath.FromSlash(name)), nil
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
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

// checkOutput keeps a check's output for logs/check.log: the first bytes up
// to its cap less tailKeep, then, once the cap is passed, the last tailKeep
// bytes, so that both the start and the end (where test runners print
// their summary) survive. The sandbox calls Write from one goroutine.
type checkOutput struct {
	max   int
	head  []byte
	tail  []byte // the last tailKeep bytes of the whole output
	total int64
}

const tailKeep = 4 << 10

func newCheckOutput(max int) *checkOutput { return &checkOutput{max: max} }

func (o *checkOutput) Write(p []byte) (int, error) {
	if room := o.max - tailKeep - len(o.head); room > 0 {
		o.head = append(o.head, p[:min(len(p), room)]...)
	}
	o.total += int64(len(p))
	if len(p) >= tailKeep {
		o.tail = append(o.tail[:0], p[len(p)-tailKeep:]...)
	} else {
		o.tail = append(o.tail, p...)
		if len(o.tail) > tailKeep {
			o.tail = append(o.tail[:0], o.tail[len(o.tail)-tailKeep:]...)
		}
	}
	return len(p), nil
}

// bytes is the log's text: the whole output when it fits, else its head,
// a note of what was dropped, and its tail.
func (o *checkOutput) bytes() []byte {
	b := append([]byte(nil), o.head...)
	rest := o.total - int64(len(o.head)) // what came after the head
	if rest <= int64(len(o.tail)) {
		return append(b, o.tail[int64(len(o.tail))-rest:]...)
	}
	note := fmt.Sprintf("\nmurmur-eval: output cut: %d bytes dropped after the first %d; the last %d follow\n",
		rest-int64(len(o.tail)), len(o.head), len(o.tail))
	return append(append(b, note...), o.tail...)
}

// lastLine is the last non-blank line of the output.
func (o *checkOutput) lastLine() string {
	lines := strings.Split(strings.TrimRight(string(o.tail), "\n\r\t "), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
