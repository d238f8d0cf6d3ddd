package pipeline

import (
	"context"
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
			c := &Case{}
			setExit(c, tt.exit)
			Store(c, reportKey, reportScores(tt.scores))
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

// TestVerdictIsCarried: the executor judges a case once, after its last
// stage; what is read afterwards is that verdict, and a case read while it
// runs is judged on what it holds then.
func TestVerdictIsCarried(t *testing.T) {
	var during Verdict
	g, err := NewGraph(
		Node{Stage: fakeStage{name: "loop", run: func(_ context.Context, c *Case) error {
			setExit(c, ExitOK)
			return nil
		}}},
		Node{Stage: fakeStage{name: "report", run: func(_ context.Context, c *Case) error {
			during = c.Verdict()
			return errcode.New(errcode.IO, "write result")
		}}, Decl: Decl{Requires: []string{"loop"}, RunDespiteFailure: true}},
	)
	if err != nil {
		t.Fatal(err)
	}
	c := &Case{}
	g.Execute(context.Background(), c)
	if during.Status != StatusPassed {
		t.Fatalf("during report: %s, want passed (nothing had failed yet)", during.Status)
	}
	v := c.Verdict()
	if v.Status != StatusError || v.Stage != "report" || v.Code != errcode.IO {
		t.Fatalf("verdict = %+v", v)
	}
	c.Stages = nil // the carried verdict does not change with the case's fields
	if got := c.Verdict(); got.Status != StatusError || got.Code != errcode.IO {
		t.Fatalf("verdict re-judged: %+v", got)
	}
}
