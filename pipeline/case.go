package pipeline

import (
	"time"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// Case is the state of one case (one epoch of one dataset line) as it moves
// through the stages. The executor runs a case's stages on one goroutine, so
// a Case needs no locks; what several cases share (Shared) is read-only once
// set.
type Case struct {
	RunID      string
	Input      datasets.Case
	Epoch      int       // 1-based
	Attempt    int       // 1-based; a case that ended in error may be retried (Runner.Retries)
	SessionID  string    // ses_<uuidv7 hex>, murmur's form
	SessionDir string    // absolute path of the case's session directory
	StartedAt  time.Time // when the case's first stage started

	// Earlier holds the attempts before this one, oldest first: each ended
	// in status error and was retried. Set by the runner on the final
	// attempt only; their rows are kept, but only this attempt is scored.
	Earlier []*Case

	// Stages holds the executor's record of each stage, in execution order.
	Stages []StageResult
	// EndCause is why the case's context ended early (ErrCaseTimeout,
	// ErrInterrupted), nil when it did not. Set by the executor.
	EndCause error

	// Filled in by the stages; each field names the stage that sets it.
	// Capsule, Artifacts and Toolset are run-wide state, shared read-only
	// by every case.
	Capsule   *Capsule    // resolve
	Artifacts []Artifact  // verify
	Toolset   *Toolset    // stage
	Policy    *Policy     // contain
	Session   *Session    // launch: the open trace, the model and the tools
	Loop      LoopOutcome // loop: how the session ended
	// Workspace is the case's workspace (stage: its base and how it was
	// cloned; report: the diff's size); nil when the line names none.
	Workspace *CaseWorkspace

	// Scoring is the run's scoring plan (the manifest's scorers, how check
	// commands run), shared read-only by every case and set when the case
	// is built; nil scores with the default plan.
	Scoring *scoring.Plan
	// Scores are the case's scores, in scoring order, set by report for a
	// case whose session ended and whose stages all ran; nil otherwise.
	Scores []scoring.Score

	// verdict is the case's verdict, judged once when its last stage has
	// run (settle); nil while it runs.
	verdict *Verdict

	// observed is set once the session's model and tools are wrapped with
	// spans (observe.go).
	observed bool
}

// CaseWorkspace is a case's workspace: the run's base it was cloned from.
type CaseWorkspace struct {
	Base  *workspace.Base
	Clone workspace.CloneResult
	// DiffBytes is the size of out/workspace.diff before any cut, set by
	// report; nil when no diff was written.
	DiffBytes *int64
}

// LoopOutcome is how the agent loop ended a case's session.
type LoopOutcome struct {
	ExitStatus string // ExitOK, ExitFailed, ExitMaxTurnsReached; "" if no session ended
	ResultText string // what out/result.txt says: the final answer or "error: ..."
	// TaskExit is the task's task_end exit status: ok, failed, or
	// reopen_budget_exhausted when on-task-end hooks kept reopening it.
	TaskExit string
	// Reopens is how many times on-task-end hooks reopened the task.
	Reopens int
}

// Stage returns the record of the named stage, if it has run or been skipped.
func (c *Case) Stage(name string) (StageResult, bool) {
	for _, r := range c.Stages {
		if r.Stage == name {
			return r, true
		}
	}
	return StageResult{}, false
}

// Verdict is the case's verdict, judged once by the executor after its
// last stage and carried from then on (the runner, the rows, the journal,
// the summary and the span all read this one). A case that has not
// finished (a stage asking mid-run, a case built by hand in a test) is
// judged on what it holds now, and nothing is kept.
func (c *Case) Verdict() Verdict {
	if c.verdict != nil {
		return *c.verdict
	}
	return Judge(c)
}

// settle judges the finished case once. The runner settles it again when
// it changes EndCause afterwards (cutShort).
func (c *Case) settle() {
	v := Judge(c)
	c.verdict = &v
}

// ExitStatus is the session's exit status (ExitOK, ExitFailed,
// ExitMaxTurnsReached), or "" when the loop never ended a session.
func (c *Case) ExitStatus() string { return c.Loop.ExitStatus }
