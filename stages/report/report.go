// Package report is the Report stage: it runs for every case, whatever
// failed before it, and writes the case's report files: out/result.txt,
// out/workspace.diff when the case has a workspace, and, for a case whose
// session ended and whose stages all ran, its scores (scoring.Plan),
// written to the session's eval.jsonl in murmur's record format. The
// case's row is assembled from the Case after this stage, so that the row
// can carry report_ms too.
//
// Report closes nothing: the session's trace and the case's workspace are
// results that hold something open, which the executor closes after the
// case's last stage (pipeline.Closer). What it reads of the stages before
// it, any of which may have failed, is wired by the stage table (Reads):
// it imports no other stage.
package report

import (
	"context"
	"errors"
	"os"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets/commands"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// Name is the stage's name in the graph.
const Name = "report"

// Result is the key of the stage's result, the case's *Report.
var Result = pipeline.NewKey[*Report](Name) //nolint:gochecknoglobals // a constant key (Go has no const of a generic type)

// Decl declares the stage to the graph: it runs despite failures, and
// requires what its Reads read (the table adds Reads.Requires).
var Decl = pipeline.Decl{Name: Name, Produces: Result, RunDespiteFailure: true} //nolint:gochecknoglobals // a declaration, as go/analysis's Analyzer values

// Reads are what Report reads of the stages before it, wired by the stage
// table (package stages) so that Report imports none of them: the keys of
// the session and the loop's outcome, and functions that find the case's
// workspace and its check commands' sandbox. Requires are the stages whose
// results those read, which the table declares as Report's requires. A
// zero field reads nothing.
type Reads struct {
	Session pipeline.Key[*session.Session]
	Outcome pipeline.Key[*session.Outcome]
	// Workspace returns the case's workspace; nil when it has none.
	Workspace func(*pipeline.Case) Workspace
	// Sandbox returns what the case's check commands run with.
	Sandbox func(*pipeline.Case) (CheckSandbox, error)
	// Requires are the stages whose results the above read.
	Requires []string
}

// Workspace is a case's workspace as Report sees it: the diff of what the
// case changed.
type Workspace interface {
	// Diff writes out/workspace.diff and returns its size before any cut.
	Diff(ctx context.Context) (int64, error)
}

// CheckSandbox is what a case's check commands run with: the run's host
// and the capsule's Spawner, the case's resources and its overlay layer
// ("" without one).
type CheckSandbox struct {
	Host      commands.Host
	Resources capsule.Resources
	Layer     string
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

// Options are a run's Report settings.
type Options struct {
	// Reads are what Report reads of the earlier stages.
	Reads Reads
	// Commands runs check commands: the run's launcher, shared with the
	// Stage stage's setup commands, made and closed by the run.
	Commands *commands.Launcher
	// Plan is the run's scoring plan; nil for the default plan.
	Plan *scoring.Plan
}

// Stage is the Report stage. It is safe for concurrent use. The zero
// value reads nothing and writes nothing (a case without a session
// folder).
type Stage struct {
	opts Options
}

// New returns a Report stage for one run.
func New(o Options) Stage { return Stage{opts: o} }

// WithPlan returns s scoring with plan, the run's scoring plan.
func (s Stage) WithPlan(plan *scoring.Plan) Stage {
	s.opts.Plan = plan
	return s
}

// Name returns "report".
func (Stage) Name() string { return Name }

// Run writes the case's report files and scores the case. It writes
// nothing when the case never got a session directory (a failure before
// Stage). A report file it cannot write fails the stage (E-IO-003 unless
// the failure carries a code of its own), and so does a scorer that
// cannot run (a check command that does not start), so the case is an
// error, not the model's failure.
func (s Stage) Run(ctx context.Context, c *pipeline.Case) error {
	ses := lookup(c, s.opts.Reads.Session)
	out := lookup(c, s.opts.Reads.Outcome)
	if out == nil {
		out = &session.Outcome{}
	}
	rep := &Report{}
	pipeline.Store(c, Result, rep)
	if c.SessionDir != "" {
		errs := []error{writeResult(c, out), writeTranscript(c, out)}
		if w := s.workspace(c); w != nil {
			// What the agent changed, against the base: written whatever
			// the outcome, and before a check command runs in the folder.
			d, err := w.Diff(ctx)
			if err == nil {
				rep.DiffBytes = &d
			}
			errs = append(errs, err)
		}
		if err := errors.Join(errs...); err != nil {
			return errcode.WrapKeep(errcode.IO, err, "finish session files")
		}
	}
	if !scorable(c, ses, out) {
		return nil
	}
	scores, err := s.score(ctx, c, ses, out)
	rep.Scores = scores
	return err
}

// lookup returns k's result, nil when k is unset or the case has none.
func lookup[T any](c *pipeline.Case, k pipeline.Key[T]) T {
	var zero T
	if k.Stage() == "" {
		return zero
	}
	v, _ := pipeline.Lookup(c, k)
	return v
}

func (s Stage) workspace(c *pipeline.Case) Workspace {
	if s.opts.Reads.Workspace == nil {
		return nil
	}
	return s.opts.Reads.Workspace(c)
}

// scorable reports whether the case gets a verdict from its scorers: its
// session ended, not by its budget (status over_budget), and no stage before Report failed (a failed stage makes it
// an error, a timeout or cancelled, whatever the trace says).
func scorable(c *pipeline.Case, ses *session.Session, out *session.Outcome) bool {
	if out.ExitStatus == "" || ses == nil || ses.Trace == nil {
		return false
	}
	if out.OverBudget() {
		return false // ended by the harness's limit: unscored, as a timeout
	}
	for _, r := range c.Stages {
		if r.Outcome == pipeline.Failed {
			return false
		}
	}
	return true
}

// writeTranscript writes logs/transcript.jsonl, the conversation the loop
// recorded (package transcript), fresh through sessionfs as
// out/result.txt is. A case whose loop never ran has none.
func writeTranscript(c *pipeline.Case, out *session.Outcome) error {
	if out.Transcript.Empty() {
		return nil
	}
	return sessionfs.WriteFile(c.SessionDir, transcript.FileName, out.Transcript.Encode(), 0o644)
}

// writeResult writes out/result.txt: the loop's text, or for a case that
// failed before the loop ended a session, "error: " and the first failure.
func writeResult(c *pipeline.Case, out *session.Outcome) error {
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
