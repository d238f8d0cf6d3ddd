// Package report is the Report stage: it runs for every case, whatever
// failed before it, and finishes the session's files: murmur's fallback
// session_end when a session started but never ended, the trace flushed and
// closed, and out/result.txt. A case whose session ended and whose stages
// all ran is then scored (scoring.Plan) and its scores written to the
// session's eval.jsonl in murmur's record format. The case's row is
// assembled from the Case after this stage, so that the row can carry
// report_ms too.
package report

import (
	"context"
	"errors"
	"os"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/stages/datasetcmd"
)

// Name is the stage's name in the graph.
const Name = "report"

// Stage is the Report stage. The run's scoring plan comes with each case
// (pipeline.Case.Scoring); the stage holds only the launcher it makes for
// check commands when the capsule has no shell or native tools (their
// launcher is used otherwise). Make it with New and Close it at the end of
// the run; the zero value runs checks only with the toolset's launcher.
type Stage struct {
	checks *datasetcmd.Launcher
}

// New returns a Report stage for one run whose folder is runDir (the
// check's launcher copy goes there; "" for the system's temporary folder).
func New(runDir string) Stage { return Stage{checks: datasetcmd.NewLauncher(runDir)} }

// NewWith returns a Report stage whose checks run through l, a launcher
// the run shares with the Stage stage's setup commands.
func NewWith(l *datasetcmd.Launcher) Stage { return Stage{checks: l} }

// Close removes the launcher made for check commands, if any.
func (s Stage) Close() error { return s.checks.Close() }

// Name returns "report".
func (Stage) Name() string { return Name }

// Run finishes the case's session files and scores the case. It writes
// nothing when the case never got a session directory (a failure before
// Stage). A scorer that cannot run (a check command that does not start)
// fails the stage, so the case is an error, not the model's failure.
func (s Stage) Run(ctx context.Context, c *pipeline.Case) error {
	var errs []error
	if ses := c.Session; ses != nil && ses.Trace != nil {
		if ses.Trace.Started() && !ses.Trace.Ended() {
			// murmur's launch fallback: an attempt that started but ended in
			// an error still gets a session_end, with status failed.
			errs = append(errs, ses.Trace.SessionEnd(pipeline.ExitFailed))
		}
		errs = append(errs, ses.Trace.Close())
	}
	if c.SessionDir != "" {
		errs = append(errs, writeResult(c))
		if w := c.Workspace; w != nil && w.Base != nil {
			// What the agent changed, against the base: written whatever
			// the outcome, through sessionfs (the session is hostile now).
			d, err := w.Base.Diff(ctx, c.SessionDir, w.Clone, 0)
			if err == nil {
				w.DiffBytes = &d.Bytes
			}
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return errcode.Wrap(errcode.IO, err, "finish session files")
	}
	if !scorable(c) {
		return nil
	}
	return score(ctx, c, s.checks)
}

// scorable reports whether the case gets a verdict from its scorers: its
// session ended and no stage before Report failed (a failed stage makes it
// an error, a timeout or cancelled, whatever the trace says).
func scorable(c *pipeline.Case) bool {
	if c.Loop.ExitStatus == "" || c.Session == nil || c.Session.Trace == nil {
		return false
	}
	for _, r := range c.Stages {
		if r.Outcome == pipeline.Failed {
			return false
		}
	}
	return true
}

// writeResult writes out/result.txt: the loop's text, or for a case that
// failed before the loop ended a session, "error: " and the first failure.
func writeResult(c *pipeline.Case) error {
	text := c.Loop.ResultText
	if c.Loop.ExitStatus == "" {
		if v := c.Verdict(); v.Err != nil {
			text = "error: " + v.Err.Error()
		}
	}
	// The session folder is the tools': out/result.txt is created fresh
	// through sessionfs, whatever a tool left at out/ or at the name. A
	// case that failed before Stage has no folder and gets no files.
	err := sessionfs.WriteFile(c.SessionDir, "out/result.txt", []byte(text), 0o644)
	if errcode.Is(err, errcode.IONotFound) {
		if _, serr := os.Lstat(c.SessionDir); serr != nil {
			return nil
		}
	}
	return err
}
