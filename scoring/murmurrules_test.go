package scoring

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestCompareWithMurmur(t *testing.T) {
	exitOK := func(pass bool, status string) Score {
		return passFail("exit_ok", TypeExitOK, pass, "exit_status="+status)
	}
	turns := func(pass bool) Score { return passFail("turns", TypeMaxTurns, pass, "") }
	contains := func(pass bool) Score {
		s := passFail("result_contains", "result_contains", pass, "")
		s.Expected = true
		return s
	}
	implicit := func(pass bool, status string) Score {
		s := exitOK(pass, status)
		s.Implicit = true
		return s
	}
	tests := []struct {
		name string
		in   MurmurOutcome
		want MurmurView
	}{
		{"both pass", MurmurOutcome{Scored: true, Passed: true, ExitStatus: "ok",
			Scores: []Score{exitOK(true, "ok"), contains(true)}}, MurmurView{Overall: OverallPass}},
		{"both fail on a manifest scorer", MurmurOutcome{Scored: true, ExitStatus: "ok",
			Scores: []Score{exitOK(true, "ok"), turns(false), contains(true)}}, MurmurView{Overall: OverallFail}},
		{"an expected scorer fails: murmur ignores expected", MurmurOutcome{Scored: true, ExitStatus: "ok",
			Scores: []Score{exitOK(true, "ok"), contains(false)}}, MurmurView{Overall: OverallPass, Difference: DiffExpected}},
		{"a manifest judge fails: murmur scores no llm_judge", MurmurOutcome{Scored: true, ExitStatus: "ok",
			Scores: []Score{exitOK(true, "ok"), {Name: "judge", Type: TypeLLMJudge}}}, MurmurView{Overall: OverallPass, Difference: DiffJudge}},
		{"a judge and an expected scorer fail: expected named", MurmurOutcome{Scored: true, ExitStatus: "ok",
			Scores: []Score{exitOK(true, "ok"), contains(false), {Name: "llm_judge", Type: TypeLLMJudge, Expected: true}}}, MurmurView{Overall: OverallPass, Difference: DiffExpected}},
		{"only expected scorers: murmur reports no_scores", MurmurOutcome{Scored: true, Passed: true, ExitStatus: "ok",
			Scores: []Score{contains(true)}}, MurmurView{Overall: OverallNoScores, Difference: DiffNoScores}},
		{"no scorer: murmur reports no_scores", MurmurOutcome{Scored: true, Passed: true, ExitStatus: "ok",
			Scores: []Score{implicit(true, "ok")}}, MurmurView{Overall: OverallNoScores, Difference: DiffNoScores}},
		{"no scorer, failed session", MurmurOutcome{Scored: true, ExitStatus: "failed",
			Scores: []Score{implicit(false, "failed")}}, MurmurView{Overall: OverallNoScores, Difference: DiffNoScores}},
		{"exit_ok on max_turns_reached passes in murmur's hook", MurmurOutcome{Scored: true, ExitStatus: "max_turns_reached",
			Scores: []Score{exitOK(false, "max_turns_reached"), contains(true)}}, MurmurView{Overall: OverallPass, Difference: DiffExitOK}},
		{"exit_ok on failed passes in murmur's hook", MurmurOutcome{Scored: true, ExitStatus: "failed",
			Scores: []Score{exitOK(false, "failed")}}, MurmurView{Overall: OverallPass, Difference: DiffExitOK}},
		{"exit_ok flipped but another manifest scorer fails: same verdict", MurmurOutcome{Scored: true, ExitStatus: "failed",
			Scores: []Score{exitOK(false, "failed"), turns(false)}}, MurmurView{Overall: OverallFail}},
		{"exit_ok flipped and an expected scorer fails: exit_ok decides", MurmurOutcome{Scored: true, ExitStatus: "failed",
			Scores: []Score{exitOK(false, "failed"), contains(false)}}, MurmurView{Overall: OverallPass, Difference: DiffExitOK}},
		{"reopen budget exhausted fails in murmur too", MurmurOutcome{Scored: true, ExitStatus: "ok", TaskExit: TaskReopenBudgetExhausted,
			Scores: []Score{exitOK(false, TaskReopenBudgetExhausted)}}, MurmurView{Overall: OverallFail}},
		{"reopen budget exhausted on a failed session", MurmurOutcome{Scored: true, ExitStatus: "failed", TaskExit: TaskReopenBudgetExhausted,
			Scores: []Score{exitOK(false, TaskReopenBudgetExhausted)}}, MurmurView{Overall: OverallFail}},
		{"provider outage: murmur scores the session", MurmurOutcome{ErrorCode: errcode.ProviderUnavailable},
			MurmurView{Difference: DiffModelTurnError}},
		{"provider refused the request", MurmurOutcome{ErrorCode: errcode.ProviderRejected},
			MurmurView{Difference: DiffModelTurnError}},
		{"unusable model response", MurmurOutcome{ErrorCode: errcode.ModelResponse},
			MurmurView{Difference: DiffModelTurnError}},
		{"process agent loop failure", MurmurOutcome{ErrorCode: errcode.RunAgentLoop},
			MurmurView{Difference: DiffModelTurnError}},
		{"staging error: not comparable", MurmurOutcome{ErrorCode: errcode.RegistryIntegrity}, MurmurView{}},
		{"replay error: murmur has no replay", MurmurOutcome{ErrorCode: errcode.ReplayMissing}, MurmurView{}},
		{"timeout: not comparable", MurmurOutcome{ErrorCode: errcode.Timeout}, MurmurView{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CompareWithMurmur(tt.in); got != tt.want {
				t.Errorf("CompareWithMurmur = %+v, want %+v", got, tt.want)
			}
		})
	}
}
