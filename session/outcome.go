package session

import (
	"github.com/murmur-nexus/murmur-eval/trace"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// Outcome is how the agent loop ended a case's session: the Loop stage's
// result (loop.Result), which Report and the rows read. It lives here, not
// in the loop's package, so that its readers import no stage.
type Outcome struct {
	ExitStatus string // trace.ExitOK, ExitFailed, ExitMaxTurnsReached, ExitBudgetReached; "" if no session ended
	ResultText string // what out/result.txt says: the final answer or "error: ..."
	// TaskExit is the task's task_end exit status: ok, failed, or
	// reopen_budget_exhausted when on-task-end hooks kept reopening it.
	TaskExit string
	// Reopens is how many times on-task-end hooks reopened the task.
	Reopens int
	// Transcript is the conversation the loop had, which Report writes to
	// the session's logs/transcript.jsonl (nil: none, a script capsule).
	Transcript *transcript.Recorder
}

// Grade is the verdict of an unscored case (pipeline.Grader): passed when
// the session ended ok, what the default exit_ok scorer would say.
func (o *Outcome) Grade() (passed, decided bool) { return o.ExitStatus == trace.ExitOK, true }

// OverBudget reports whether the case's --case-max-tokens or
// --case-max-cost ended its session (pipeline.OverBudgeter).
func (o *Outcome) OverBudget() bool { return o.ExitStatus == trace.ExitBudgetReached }
