package staging

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/datasets/commands"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// SetupLog is where a setup command's output is kept, relative to the
// session folder; SetupHome is its HOME (TMPDIR is SetupHome/tmp).
const (
	SetupLog  = "logs/setup.log"
	SetupHome = ".setup-home"
)

// setupLogMax caps logs/setup.log: its first bytes are kept.
const setupLogMax = 1 << 20

// setup runs the case's setup command in its session, as a check runs
// (package commands), after the workspace is in place and before the agent
// starts. A setup that cannot start, exits non-zero, is killed or runs out
// of its time is a harness error (E-EVL-062 for the last three), never the
// model's failure; its output goes to logs/setup.log, written by
// murmur-eval through sessionfs.
func (s Stage) setup(ctx context.Context, c *pipeline.Case, in datasets.Case, cap *resolve.Capsule, ts *verify.Toolset, ws *Workspace) error {
	spec := in.Setup
	if spec == nil {
		return nil
	}
	root, err := sessionfs.Open(c.SessionDir)
	if err != nil {
		return err
	}
	defer root.Close()
	out := &headBuffer{max: setupLogMax}
	failed := func(err error) error {
		fmt.Fprintf(out, "murmur-eval: %v\n", err)
		if werr := root.WriteFile(SetupLog, out.bytes(), 0o644); werr != nil {
			return errcode.WrapKeep(errcode.IO, werr, "write %s", SetupLog)
		}
		return err
	}
	if s.opts.Commands == nil {
		return failed(errcode.New(errcode.Internal, "setup: the run has no launcher for dataset commands"))
	}
	if err := root.MkdirAll(filepath.Join(SetupHome, "tmp"), 0o755); err != nil {
		return errcode.WrapKeep(errcode.IO, err, "setup: create its HOME")
	}
	path := cmp.Or(s.opts.PATH, scoring.DefaultPATH)
	bin, err := scoring.LookPath(root, spec.Argv[0], path)
	if err != nil {
		return failed(errcode.Wrap(errcode.SetupFailed, err, "setup: cannot start %q", spec.Argv[0]))
	}
	var execFiles []string
	if rel, rerr := filepath.Rel(c.SessionDir, bin); rerr != nil || !filepath.IsLocal(rel) {
		execFiles = []string{bin}
	}
	home := filepath.Join(c.SessionDir, SetupHome)
	res := cap.Manifest.Capabilities.Resources
	res.WorkdirMaxBytes = ws.WorkdirMaxBytes(res.WorkdirMaxBytes)
	res.WorkdirMaxFiles = ws.WorkdirMaxFiles(s.opts.WorkdirMaxFiles)
	r, err := s.opts.Commands.Run(ctx, commands.Host{Probe: ts.Host, Spawner: ts.Spawner}, res, commands.Proc{
		Path: bin, Argv: spec.Argv, SessionDir: c.SessionDir, Layer: ws.UpperDir(), ExecFiles: execFiles,
		Env: []string{
			"PATH=" + path,
			"HOME=" + home,
			"TMPDIR=" + filepath.Join(home, "tmp"),
			"LANG=C.UTF-8",
			"MURMUR_CASE_ID=" + in.ID,
			"MURMUR_SESSION_ID=" + c.SessionID,
		},
		Timeout: spec.Timeout, Output: out,
	})
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return failed(err)
	}
	end := ""
	switch {
	case r.TimedOut:
		end = fmt.Sprintf("timed out after %s", spec.Timeout)
	case r.Stopped != "":
		end = "stopped: " + r.Stopped
	case r.Signal != "":
		end = "killed by signal: " + r.Signal
	case r.ExitCode != 0:
		end = fmt.Sprintf("exited with status %d", r.ExitCode)
	}
	last := out.lastLine()
	fmt.Fprintf(out, "\nmurmur-eval: setup %s after %s\n", cmp.Or(end, "exited with status 0"), r.Duration.Round(time.Millisecond))
	if err := root.WriteFile(SetupLog, out.bytes(), 0o644); err != nil {
		return errcode.WrapKeep(errcode.IO, err, "write %s", SetupLog)
	}
	if end != "" {
		msg := "setup " + end
		if last != "" {
			msg += ": " + last
		}
		return errcode.New(errcode.SetupFailed, "%s", msg).
			WithHint("the case's setup command failed before the agent started; its output is in %s", SetupLog)
	}
	return nil
}

// addSat is a+b, saturating.
func addSat(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// headBuffer keeps the first max bytes written and counts the rest.
type headBuffer struct {
	buf     bytes.Buffer
	max     int
	dropped int64
}

func (h *headBuffer) Write(p []byte) (int, error) {
	room := h.max - h.buf.Len()
	if room >= len(p) {
		h.buf.Write(p)
	} else {
		h.buf.Write(p[:max(room, 0)])
		h.dropped += int64(len(p) - max(room, 0))
	}
	return len(p), nil
}

func (h *headBuffer) bytes() []byte {
	b := h.buf.Bytes()
	if h.dropped > 0 {
		b = append(b, fmt.Sprintf("\nmurmur-eval: output cut: %d bytes dropped after the first %d\n", h.dropped, h.max)...)
	}
	return b
}

// lastLine is the last non-blank line of what was kept, cut at 200 bytes.
func (h *headBuffer) lastLine() string {
	lines := strings.Split(strings.TrimRight(h.buf.String(), "\n\r\t "), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}
