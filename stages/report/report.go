// Package report is the Report stage: it runs for every case, whatever
// failed before it, and finishes the session's files: murmur's fallback
// session_end when a session started but never ended, the trace flushed and
// closed, and out/result.txt. A case whose session ended and whose stages
// all ran is then scored (scoring.Plan) and its scores written to the
// session's eval.jsonl in murmur's record format. The case's row is
// assembled from the Case after this stage, so that the row can carry
// report_ms too.
//
// Report reads what the stages before it left (Lookup): any of them may
// have failed.
package report

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/datasetcmd"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/session"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Name is the stage's name in the graph.
const Name = "report"

// Result is the key of the stage's result, the case's *Report.
var Result = pipeline.NewKey[*Report](Name) //nolint:gochecknoglobals // a constant key (Go has no const of a generic type)

// Requires returns the stages whose results Report reads: the session to close
// and score, the loop's outcome, the workspace to diff, and the toolset
// and policy a check command runs under.
func Requires() []string {
	return []string{verify.Name, staging.Name, contain.Name, launch.Name, loop.Name}
}

// Report is what Report made of a case: its scores, in scoring order (nil
// unless the case's session ended and its stages all ran), and the size of
// out/workspace.diff before any cut (nil when no diff was written).
type Report struct {
	Scores    []scoring.Score
	DiffBytes *int64
}

// Grade is the verdict of a scored case (pipeline.Grader): passed when
// every scorer passed; a case without scores is left to the loop.
func (r *Report) Grade() (passed, decided bool) {
	for _, s := range r.Scores {
		if !s.Pass {
			return false, true
		}
	}
	return true, len(r.Scores) > 0
}

// Stage is the Report stage. It holds the run's scoring plan (nil scores
// with the default plan) and the launcher it makes for check commands when
// the capsule has no shell or native tools (their launcher is used
// otherwise). Make it with New and Close it at the end of the run; the
// zero value runs checks only with the toolset's launcher.
type Stage struct {
	checks *datasetcmd.Launcher
	plan   *scoring.Plan
}

// New returns a Report stage for one run whose folder is runDir (the
// check's launcher copy goes there; "" for the system's temporary folder).
func New(runDir string) Stage { return Stage{checks: datasetcmd.NewLauncher(runDir)} }

// NewWith returns a Report stage whose checks run through l, a launcher
// the run shares with the Stage stage's setup commands.
func NewWith(l *datasetcmd.Launcher) Stage { return Stage{checks: l} }

// WithPlan returns s scoring with plan, the run's scoring plan.
func (s Stage) WithPlan(plan *scoring.Plan) Stage {
	s.plan = plan
	return s
}

// Close removes the launcher made for check commands, if any.
func (s Stage) Close() error { return s.checks.Close() }

// Name returns "report".
func (Stage) Name() string { return Name }

// Run finishes the case's session files and scores the case. It writes
// nothing when the case never got a session directory (a failure before
// Stage). A scorer that cannot run (a check command that does not start)
// fails the stage, so the case is an error, not the model's failure.
func (s Stage) Run(ctx context.Context, c *pipeline.Case) (err error) {
	if st, _ := pipeline.Lookup(c, staging.Result); st != nil && st.Workspace != nil {
		// Once the diff, the checks and expected.files have seen the final
		// state: an overlaid workspace is unmounted (docs/workspaces.md).
		defer func() {
			if rerr := st.Workspace.Release(); rerr != nil && err == nil {
				err = errcode.Wrap(errcode.IO, rerr, "release the workspace")
			}
		}()
	}
	ses, _ := pipeline.Lookup(c, launch.Result)
	out, _ := pipeline.Lookup(c, loop.Result)
	if out == nil {
		out = &loop.Outcome{}
	}
	rep := &Report{}
	pipeline.Store(c, Result, rep)
	var errs []error
	if ses != nil && ses.Trace != nil {
		if ses.Trace.Started() && !ses.Trace.Ended() {
			// murmur's launch fallback: an attempt that started but ended in
			// an error still gets a session_end, with status failed.
			errs = append(errs, ses.Trace.SessionEnd(trace.ExitFailed))
		}
		if c.SessionDir != "" {
			// No tool runs any more: what a tool planted at a log's name
			// is removed and noted in the trace, whose own name Close
			// checks (docs/sandbox.md, "Host-side file access").
			errs = append(errs, unplantLogs(c.SessionDir, ses.Trace, ses.Hooks != nil))
		}
		errs = append(errs, ses.Trace.Close())
	}
	if c.SessionDir != "" {
		errs = append(errs, writeResult(c, out))
		if st, _ := pipeline.Lookup(c, staging.Result); st != nil && st.Workspace != nil && st.Workspace.Base != nil {
			// What the agent changed, against the base: written whatever
			// the outcome, through sessionfs (the session is hostile now).
			w := st.Workspace
			d, err := w.Base.Diff(ctx, c.SessionDir, w.Clone, 0)
			if err == nil {
				rep.DiffBytes = &d.Bytes
			}
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return finishErr(err)
	}
	if !scorable(c, ses, out) {
		return nil
	}
	scores, err := s.score(ctx, c, ses, out)
	rep.Scores = scores
	return err
}

// finishErr is the stage's error for session files it could not finish:
// E-IO-003, unless one of the failures already carries a code (a session
// file refused is E-EVL-040), which is kept, because errcode.Code reads the
// outermost code and the specific one should win (HOUSE-STYLE.md).
func finishErr(err error) error {
	if errcode.Code(err) != "" {
		return fmt.Errorf("finish session files: %w", err)
	}
	return errcode.Wrap(errcode.IO, err, "finish session files")
}

// scorable reports whether the case gets a verdict from its scorers: its
// session ended and no stage before Report failed (a failed stage makes it
// an error, a timeout or cancelled, whatever the trace says).
func scorable(c *pipeline.Case, ses *session.Session, out *loop.Outcome) bool {
	if out.ExitStatus == "" || ses == nil || ses.Trace == nil {
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
func writeResult(c *pipeline.Case, out *loop.Outcome) error {
	text := out.ResultText
	if out.ExitStatus == "" {
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
