package scoring

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/trace"
)

// ExitOK is the status exit_ok passes on.
const ExitOK = "ok"

// TaskReopenBudgetExhausted is the task_end status that fails exit_ok
// whatever the last session's status.
const TaskReopenBudgetExhausted = "reopen_budget_exhausted"

// Builtin scores one of murmur's built-in scorers on a session's trace, with
// murmur-hook-eval's semantics and reasons (murmur-session.md §5.2). One
// difference is deliberate: exit_ok reads the trace's session_end, so a
// session that ran out of turns (max_turns_reached) or whose model failed
// (failed) fails exit_ok, as murmur documents, where murmur's hook sees "ok"
// (RATIONALE.md). ok is false for a type that is never scored.
func Builtin(spec ScorerSpec, t TraceSummary) (Score, bool) {
	switch spec.Type {
	case TypeExitOK:
		status := t.ExitStatus
		if t.TaskExitStatus == TaskReopenBudgetExhausted {
			// on-task-end hooks rejected every attempt the budget allowed:
			// murmur's launch fails, and so does exit_ok.
			status = t.TaskExitStatus
		}
		return passFail(spec.Name, spec.Type, status == ExitOK, "exit_status="+status), true
	case TypeMaxTurns:
		pass := t.TotalTurns >= 0 && uint64(t.TotalTurns) <= spec.Max
		return passFail(spec.Name, spec.Type, pass, fmt.Sprintf("turns=%d max=%d", t.TotalTurns, spec.Max)), true
	case TypeMaxTokens:
		n := trace.AddTokens(t.TotalInputTokens, t.TotalOutputTokens)
		pass := n >= 0 && uint64(n) <= spec.Max
		return passFail(spec.Name, spec.Type, pass, fmt.Sprintf("tokens=%d max=%d", n, spec.Max)), true
	case TypeToolSequence:
		return toolSequence(spec, t.Observed), true
	}
	return Score{}, false
}

// toolSequence matches spec.Expected greedily, in order, as a subsequence of
// observed. The score is the fraction of expected names matched; it passes
// only when all are (an empty expectation passes with 1.0).
func toolSequence(spec ScorerSpec, observed []string) Score {
	matched := 0
	for _, name := range observed {
		if matched < len(spec.Expected) && name == spec.Expected[matched] {
			matched++
		}
	}
	return Score{
		Name:   spec.Name,
		Type:   spec.Type,
		Pass:   matched == len(spec.Expected),
		Value:  fraction(matched, len(spec.Expected)),
		Reason: "observed=" + debugList(observed) + " expected=" + debugList(spec.Expected),
	}
}

// debugList formats names as Rust's Debug does a Vec<String>:
// ["a", "b"], [] when empty.
func debugList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
