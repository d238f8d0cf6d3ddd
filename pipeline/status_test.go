package pipeline

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

func TestJudgeUsesScores(t *testing.T) {
	pass := scoring.Score{Name: "a", Pass: true, Value: 1}
	fail := scoring.Score{Name: "b", Reason: "turns=5 max=3"}
	tests := []struct {
		name   string
		exit   string
		scores []scoring.Score
		failed bool // a stage failed
		want   Status
	}{
		{"every scorer passed", ExitFailed, []scoring.Score{pass}, false, StatusPassed},
		{"a scorer failed", ExitOK, []scoring.Score{pass, fail}, false, StatusFailed},
		{"a failed stage wins over scores", ExitOK, []scoring.Score{pass}, true, StatusError},
		{"unscored falls back on exit status", ExitOK, nil, false, StatusPassed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Case{Loop: LoopOutcome{ExitStatus: tt.exit}, Scores: tt.scores}
			c.Stages = []StageResult{{Stage: "loop", Outcome: Ran}}
			if tt.failed {
				c.Stages = append(c.Stages, StageResult{Stage: "report", Outcome: Failed, Err: errcode.New(errcode.IONotFound, "check: command not found")})
			}
			if got := Judge(c).Status; got != tt.want {
				t.Errorf("Judge = %s, want %s", got, tt.want)
			}
		})
	}
}
