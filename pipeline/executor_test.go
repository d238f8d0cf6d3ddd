package pipeline

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// The seven stages with murmur-eval's real edges, as fakes.
func sevenStages(t *testing.T, runs map[string]func(context.Context, *Case) error) *Graph {
	t.Helper()
	mk := func(name string, despite bool, requires ...string) Node {
		return Node{Stage: fakeStage{name: name, run: runs[name]}, Decl: Decl{Requires: requires, RunDespiteFailure: despite}}
	}
	g, err := NewGraph(
		mk("resolve", false),
		mk("verify", false, "resolve"),
		mk("stage", false, "verify"),
		mk("contain", false, "stage"),
		mk("launch", false, "contain"),
		mk("loop", false, "launch"),
		mk("report", true, "loop"),
	)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type stageView struct {
	Stage, Outcome, Code string
}

func view(c *Case) []stageView {
	var v []stageView
	for _, r := range c.Stages {
		v = append(v, stageView{r.Stage, r.Outcome.String(), errcode.Code(r.Err)})
	}
	return v
}

func TestExecuteSkipsDependentsButAlwaysReports(t *testing.T) {
	reportRan := false
	g := sevenStages(t, map[string]func(context.Context, *Case) error{
		"verify": func(context.Context, *Case) error {
			return errcode.New(errcode.RegistryIntegrity, "artifact integrity check failed for calc@0.1.0")
		},
		"report": func(ctx context.Context, c *Case) error {
			reportRan = true
			if ctx.Err() != nil {
				t.Error("report got a cancelled context")
			}
			return nil
		},
	})
	c := &Case{}
	g.Execute(context.Background(), c)
	want := []stageView{
		{"resolve", "ran", ""},
		{"verify", "failed", "E-REG-002"},
		{"stage", "skipped", "E-EVL-030"},
		{"contain", "skipped", "E-EVL-030"},
		{"launch", "skipped", "E-EVL-030"},
		{"loop", "skipped", "E-EVL-030"},
		{"report", "ran", ""},
	}
	if diff := cmp.Diff(want, view(c)); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
	if !reportRan {
		t.Error("report did not run")
	}
	r, _ := c.Stage("stage")
	if got, want := r.Err.Error(), "failed prerequisites: verify"; got != want {
		t.Errorf("skip reason = %q, want %q", got, want)
	}
	v := Judge(c)
	if v.Status != StatusError || v.Stage != "verify" || v.Code != errcode.RegistryIntegrity {
		t.Errorf("Judge = %+v, want error at verify with E-REG-002", v)
	}
}

// TestExecuteTimesEveryStageThatRan: in a bubble, the loop's 20 ms sleep
// is exactly its duration.
func TestExecuteTimesEveryStageThatRan(t *testing.T) { synctest.Test(t, testExecuteTimes) }

func testExecuteTimes(t *testing.T) {
	g := sevenStages(t, map[string]func(context.Context, *Case) error{
		"loop": func(context.Context, *Case) error { time.Sleep(20 * time.Millisecond); return nil },
	})
	c := &Case{}
	g.Execute(context.Background(), c)
	for _, r := range c.Stages {
		if r.Outcome != Ran {
			t.Errorf("%s: outcome %v", r.Stage, r.Outcome)
		}
	}
	if r, _ := c.Stage("loop"); r.Duration != 20*time.Millisecond {
		t.Errorf("loop duration = %v, want 20ms", r.Duration)
	}
}

func TestExecuteRecoversPanics(t *testing.T) {
	g := sevenStages(t, map[string]func(context.Context, *Case) error{
		"stage": func(context.Context, *Case) error { panic("boom") },
	})
	c := &Case{}
	g.Execute(context.Background(), c)
	r, _ := c.Stage("stage")
	if r.Outcome != Failed || errcode.Code(r.Err) != errcode.Internal {
		t.Errorf("stage = %v %v, want failed with E-EVL-099", r.Outcome, r.Err)
	}
	if r, _ := c.Stage("report"); r.Outcome != Ran {
		t.Errorf("report outcome = %v, want ran", r.Outcome)
	}
}

func TestJudge(t *testing.T) {
	deadline := errors.Join(errors.New("wasm call"), context.DeadlineExceeded)
	tests := []struct {
		name       string
		failStage  string
		err        error
		endCause   error
		exitStatus string
		want       Status
		wantCode   string
	}{
		{"ok session passes", "", nil, nil, ExitOK, StatusPassed, ""},
		{"failed session fails", "", nil, nil, ExitFailed, StatusFailed, ""},
		{"max turns fails", "", nil, nil, ExitMaxTurnsReached, StatusFailed, ""},
		{"stage error", "launch", errcode.New(errcode.ReplayMissing, "x"), nil, "", StatusError, errcode.ReplayMissing},
		{"uncoded error", "launch", errors.New("x"), nil, "", StatusError, errcode.Internal},
		{"case timeout", "loop", deadline, ErrCaseTimeout, "", StatusTimeout, errcode.Timeout},
		{"interrupt", "loop", context.Canceled, ErrInterrupted, "", StatusCancelled, errcode.Cancelled},
		{"deadline without an ended case is an error", "loop", deadline, nil, "", StatusError, errcode.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Case{EndCause: tt.endCause}
			setExit(c, tt.exitStatus)
			c.Stages = []StageResult{{Stage: "resolve", Outcome: Ran}}
			if tt.failStage != "" {
				c.Stages = append(c.Stages, StageResult{Stage: tt.failStage, Outcome: Failed, Err: tt.err})
			}
			v := Judge(c)
			if v.Status != tt.want || v.Code != tt.wantCode || v.Stage != tt.failStage {
				t.Errorf("Judge = {%s %s %s}, want {%s %s %s}", v.Status, v.Code, v.Stage, tt.want, tt.wantCode, tt.failStage)
			}
		})
	}
}
