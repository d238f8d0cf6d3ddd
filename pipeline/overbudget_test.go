package pipeline

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// budgetOutcome is a fake Loop result whose session a budget may have
// ended.
type budgetOutcome struct{ over bool }

func (o *budgetOutcome) Grade() (bool, bool) { return !o.over, true }
func (o *budgetOutcome) OverBudget() bool    { return o.over }

var budgetLoopKey = NewKey[*budgetOutcome]("loop")

// TestJudgeOverBudget: a case its budget ended is over_budget, whatever
// graded it, unless a stage failed (an error or a timeout decides then).
func TestJudgeOverBudget(t *testing.T) {
	tests := []struct {
		name   string
		over   bool
		scores []scoring.Score
		failed bool
		want   Status
	}{
		{"budget reached", true, nil, false, StatusOverBudget},
		{"budget reached, scored anyway", true, []scoring.Score{{Name: "a", Pass: true}}, false, StatusOverBudget},
		{"a failed stage wins", true, nil, true, StatusError},
		{"within budget", false, nil, false, StatusPassed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Case{}
			Store(c, budgetLoopKey, &budgetOutcome{over: tt.over})
			if tt.scores != nil {
				Store(c, reportKey, reportScores(tt.scores))
			}
			c.Stages = []StageResult{{Stage: "loop", Outcome: Ran}}
			if tt.failed {
				c.Stages = append(c.Stages, StageResult{Stage: "report", Outcome: Failed, Err: errcode.New(errcode.IO, "write result")})
			}
			if got := Judge(c).Status; got != tt.want {
				t.Errorf("Judge = %s, want %s", got, tt.want)
			}
		})
	}
}
