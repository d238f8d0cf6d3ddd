package scoring

import (
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Why a case's murmur-eval verdict differs from the one murmur's own rules
// (murmur-hook-eval's scorers, mur eval run's overall) would give it. The
// keys are stable: they are the murmur_difference column's values and
// summary.json's murmur_differences reasons (docs/murmur-compatibility.md).
const (
	// DiffNoScores: the manifest configures no scorer. murmur writes no
	// eval.jsonl and reports no_scores; murmur-eval scores the case by the
	// dataset line's expected value, or by exit_ok alone when it has none
	// (RATIONALE.md, "Why is a case with no scorer scored by `exit_ok`?").
	DiffNoScores = "no_scores"
	// DiffExitOK: exit_ok failed a session that ended failed or
	// max_turns_reached, and that decided the verdict. murmur's hook sees
	// every session whose loop returned as "ok" and passes it (RATIONALE.md,
	// "Why does exit_ok fail a session that ran out of turns?").
	DiffExitOK = "exit_ok_session_status"
	// DiffModelTurnError: a model turn failed (the provider refused or was
	// unavailable, or its answer was unusable). murmur's driver ends the
	// session failed and the case is scored; murmur-eval records a harness
	// error, out of the pass rate (RATIONALE.md, "Why are errors and
	// timeouts left out of the pass rate, and counted by an error budget?").
	DiffModelTurnError = "model_turn_error"
	// DiffExpected: the manifest's scorers pass the case, and a scorer of
	// the dataset line's expected value (result_*, a file, the check)
	// failed it. murmur ignores expected (eval.rs); murmur-eval scores it
	// (docs/expected.md).
	DiffExpected = "expected_scorers"
	// DiffJudge: every other scorer passes the case and an llm_judge
	// scorer failed it. murmur parses llm_judge and scores nothing with it;
	// murmur-eval asks the run's judge model (docs/scoring.md).
	DiffJudge = "llm_judge_scorers"
)

// MurmurOutcome is what murmur-eval decided for one case, as the murmur
// comparison reads it.
type MurmurOutcome struct {
	Scored     bool    // the case was scored: status passed or failed
	Passed     bool    // status passed
	ErrorCode  string  // the case's error code when it ended in error
	ExitStatus string  // session_end's exit status, "" when no session ended
	TaskExit   string  // task_end's status (reopen_budget_exhausted matters)
	Scores     []Score // the case's scores, in order
}

// MurmurView is the verdict murmur's rules would give a case.
type MurmurView struct {
	// Overall is murmur's overall (pass, fail, no_scores); "" when murmur
	// would score a case murmur-eval could not (a failed model turn: the
	// scorers murmur would run did not run here).
	Overall string
	// Difference is one of the Diff* keys when murmur's verdict differs
	// from murmur-eval's, "" when they agree or cannot be compared (a
	// staging error, a timeout, a replay error: murmur has no such case).
	Difference string
}

// CompareWithMurmur returns the verdict murmur's rules would give a case.
// Only the differences RATIONALE.md documents are modelled; everything else
// of murmur's scorers murmur-eval scores as murmur does.
func CompareWithMurmur(o MurmurOutcome) MurmurView {
	if !o.Scored {
		if modelTurnCode(o.ErrorCode) {
			return MurmurView{Difference: DiffModelTurnError}
		}
		return MurmurView{}
	}
	ours := OverallFail
	if o.Passed {
		ours = OverallPass
	}
	var theirs, unflipped []Score
	for _, s := range o.Scores {
		if s.Implicit || s.Expected || s.Type == TypeLLMJudge {
			continue // murmur would not have scored it
		}
		unflipped = append(unflipped, s)
		if s.Type == TypeExitOK && !s.Pass && hookSeesOK(o) {
			s.Pass = true
		}
		theirs = append(theirs, s)
	}
	view := MurmurView{Overall: Overall(theirs)}
	switch {
	case view.Overall == ours:
	case view.Overall == OverallNoScores:
		view.Difference = DiffNoScores
	case Overall(unflipped) == ours:
		view.Difference = DiffExitOK
	case onlyJudgesFailed(o.Scores):
		view.Difference = DiffJudge
	default:
		view.Difference = DiffExpected
	}
	return view
}

// onlyJudgesFailed says whether the scores that failed are all llm_judge
// scorers (at least one).
func onlyJudgesFailed(scores []Score) bool {
	failed := false
	for _, s := range scores {
		switch {
		case s.Pass:
		case s.Type == TypeLLMJudge:
			failed = true
		default:
			return false
		}
	}
	return failed
}

// hookSeesOK says whether murmur's eval hook would have seen the session as
// "ok": it did end, and not because on-task-end hooks spent the reopen
// budget (murmur's launch fails then).
func hookSeesOK(o MurmurOutcome) bool {
	return (o.ExitStatus == trace.ExitFailed || o.ExitStatus == trace.ExitMaxTurnsReached) &&
		o.TaskExit != TaskReopenBudgetExhausted
}

// modelTurnCode says whether an error code is a model turn that failed:
// murmur's driver would have returned an error response and murmur would
// have ended and scored the session.
func modelTurnCode(code string) bool {
	switch code {
	case errcode.ModelResponse, errcode.ProviderAuth, errcode.ProviderRejected,
		errcode.ProviderUnavailable, errcode.RunAgentLoop:
		return true
	}
	return false
}
