package stages_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/report"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// The conformance suite: every stage of the real table, run by the real
// executor on a small capsule, (1) stores only its own result, of its
// declared type, and reads only what it requires; (2) returns promptly
// from a cancelled context, with a coded error if it fails; (3) is skipped
// with "failed prerequisites" when one of its requirements panics (Report,
// which runs despite failures, still runs and returns no uncoded error).

// answering is a model source whose model ends the turn at once, or
// returns its context's cause once the context has ended.
type answering struct{}

func (answering) ForCase(context.Context, inference.Case) (inference.Provider, error) {
	return answerModel{}, nil
}

type answerModel struct{}

func (answerModel) Complete(ctx context.Context, _ *inference.Request, _ inference.Observer) (*inference.Response, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return inference.ParseResponse([]byte(`{"stop_reason":"end_turn","content":[{"type":"text","text":"42"}]}`))
}

// table is the real stage table (stages.New) on a capsule project in a
// fresh folder, with the stages named in replace replaced.
func table(t *testing.T, replace map[string]pipeline.Stage) []pipeline.Node {
	t.Helper()
	dir, out := t.TempDir(), t.TempDir()
	manifest := "name: c\nversion: '1'\ninference: {endpoint: 'https://e.invalid', model: m, driver: {artifact: d}, max_turns: 2}\n"
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := stages.New(stages.Options{CapsuleDir: dir, RunDir: out, Models: answering{}})
	t.Cleanup(func() { _ = tb.Close() })
	if err != nil {
		t.Fatal(err)
	}
	nodes := tb.Graph.Nodes()
	for i, n := range nodes {
		if s, ok := replace[n.Name]; ok {
			nodes[i].Stage = s
		}
	}
	return nodes
}

func newCase(t *testing.T, id string) *pipeline.Case {
	return &pipeline.Case{ID: id, Input: datasets.Case{ID: id, Task: "What is 6*7?"}, Epoch: 1,
		SessionID: "ses_" + id, SessionDir: filepath.Join(t.TempDir(), "ses_"+id)}
}

func execute(t *testing.T, nodes []pipeline.Node, ctx context.Context, c *pipeline.Case) {
	t.Helper()
	g, err := pipeline.NewGraph(nodes...)
	if err != nil {
		t.Fatal(err)
	}
	g.Execute(ctx, c)
}

// TestConformanceOwnResultOnly: on a capsule that passes, every stage runs,
// none breaks the result rules (the executor would fail it with
// E-EVL-099), and each stored a result of its declared type.
func TestConformanceOwnResultOnly(t *testing.T) {
	nodes := table(t, nil)
	c := newCase(t, "a")
	execute(t, nodes, context.Background(), c)
	for _, r := range c.Stages {
		if r.Outcome != pipeline.Ran {
			t.Errorf("%s: %s: %v", r.Stage, r.Outcome, r.Err)
		}
	}
	if v := c.Verdict(); v.Status != pipeline.StatusPassed {
		t.Errorf("verdict %+v, want passed", v)
	}
	cp, _ := pipeline.Lookup(c, resolve.Result)
	ts, _ := pipeline.Lookup(c, verify.Result)
	st, _ := pipeline.Lookup(c, staging.Result)
	pol, _ := pipeline.Lookup(c, contain.Result)
	ses, _ := pipeline.Lookup(c, launch.Result)
	out, _ := pipeline.Lookup(c, loop.Result)
	rep, _ := pipeline.Lookup(c, report.Result)
	if cp == nil || ts == nil || st == nil || pol == nil || ses == nil || out == nil || rep == nil {
		t.Fatalf("a stage stored no result: %v %v %v %v %v %v %v", cp, ts, st, pol, ses, out, rep)
	}
	if st.Task != "What is 6*7?" || out.ExitStatus != "ok" || len(rep.Scores) != 1 {
		t.Errorf("staged task %q, exit %q, scores %+v", st.Task, out.ExitStatus, rep.Scores)
	}
}

// TestConformanceClosesTheSession: the executor, not Report, closes the
// session Launch opened: after the case, trace.jsonl holds the session's
// session_end, and the writer is closed (a second Close fails); a case
// whose loop failed after the session started gets murmur's fallback
// session_end.
func TestConformanceClosesTheSession(t *testing.T) {
	for _, failLoop := range []bool{false, true} {
		replace := map[string]pipeline.Stage{}
		if failLoop {
			replace[loop.Name] = forger{loop.Name, func(_ context.Context, c *pipeline.Case) error {
				ses, err := pipeline.ResultOf(c, launch.Result)
				if err != nil {
					return err
				}
				if err := ses.Trace.SessionStart(trace.SessionStart{}); err != nil {
					return err
				}
				return errcode.New(errcode.RunAgentLoop, "the loop failed")
			}}
		}
		c := newCase(t, "a")
		execute(t, table(t, replace), context.Background(), c)
		ses, _ := pipeline.Lookup(c, launch.Result)
		if ses == nil {
			t.Fatal("no session")
		}
		if err := ses.Trace.Close(); err == nil {
			t.Errorf("failLoop=%v: the trace was still open after the case", failLoop)
		}
		b, err := os.ReadFile(filepath.Join(c.SessionDir, "trace.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), `"event_type":"session_end"`); n != 1 {
			t.Errorf("failLoop=%v: %d session_end events, want 1:\n%s", failLoop, n, b)
		}
		if v := c.Verdict(); failLoop != (v.Status == pipeline.StatusError) {
			t.Errorf("failLoop=%v: verdict %+v", failLoop, v)
		}
	}
}

// forger is a stage that, under another stage's name, stores the result
// of the stage before it.
type forger struct {
	name string
	run  func(context.Context, *pipeline.Case) error
}

func (f forger) Name() string                                    { return f.name }
func (f forger) Run(ctx context.Context, c *pipeline.Case) error { return f.run(ctx, c) }

// TestConformanceForgedResultFails: the check the suite relies on bites: a
// Contain that overwrites Stage's result fails with E-EVL-099 and its
// dependents are skipped, while Stage's result stays the one Stage made.
func TestConformanceForgedResultFails(t *testing.T) {
	nodes := table(t, map[string]pipeline.Stage{contain.Name: forger{contain.Name, func(_ context.Context, c *pipeline.Case) error {
		pipeline.Store(c, staging.Result, &staging.Staged{Task: "forged"})
		pipeline.Store(c, contain.Result, &contain.Policy{})
		return nil
	}}})
	c := newCase(t, "a")
	execute(t, nodes, context.Background(), c)
	if r, _ := c.Stage(contain.Name); r.Outcome != pipeline.Failed || errcode.Code(r.Err) != errcode.Internal {
		t.Errorf("contain: %s %v, want failed with E-EVL-099", r.Outcome, r.Err)
	}
	if r, _ := c.Stage(launch.Name); r.Outcome != pipeline.Skipped || errcode.Code(r.Err) != errcode.Prerequisite {
		t.Errorf("launch: %s %v, want skipped", r.Outcome, r.Err)
	}
	if st, _ := pipeline.Lookup(c, staging.Result); st == nil || st.Task != "What is 6*7?" {
		t.Errorf("stage's result is %+v, want Stage's own", st)
	}
}

// underCancelled runs its stage with ctx, an ended context, whatever
// context the executor gives it, and reports the stage's error to done.
type underCancelled struct {
	pipeline.Stage
	ctx  context.Context
	done chan<- error
}

func (u underCancelled) Run(_ context.Context, c *pipeline.Case) error {
	err := u.Stage.Run(u.ctx, c)
	u.done <- err
	return err
}

// TestConformanceCancellation: each stage, run on a case whose
// requirements are met (and their results still open) but whose context
// has been cancelled, returns within a few seconds, and an error it
// returns carries a code or is the context's end (which the verdict turns
// into cancelled).
func TestConformanceCancellation(t *testing.T) {
	for i, n := range table(t, nil) {
		t.Run(n.Name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(pipeline.ErrInterrupted)
			done := make(chan error, 1)
			nodes := table(t, nil)
			nodes[i].Stage = underCancelled{Stage: nodes[i].Stage, ctx: ctx, done: done}
			g, err := pipeline.NewGraph(nodes[:i+1]...)
			if err != nil {
				t.Fatal(err)
			}
			finished := make(chan struct{})
			first := newCase(t, "a")
			go func() { g.Execute(context.Background(), first); close(finished) }()
			defer func() { <-finished }()
			select {
			case err := <-done:
				if err != nil && errcode.Code(err) == "" && !errors.Is(err, context.Canceled) {
					t.Errorf("%s: %v, want a coded error", n.Name, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s did not return within 5s of its context ending", n.Name)
			}
			// Through the executor, the case is cancelled, with its code.
			c := newCase(t, "b")
			execute(t, table(t, nil), ctx, c)
			if v := c.Verdict(); v.Code == "" || v.Status != pipeline.StatusCancelled {
				t.Errorf("verdict under a cancelled context: %+v, want cancelled with a code", v)
			}
		})
	}
}

// panicking is a stage that panics under the name of a real one.
type panicking struct{ name string }

func (p panicking) Name() string                              { return p.name }
func (p panicking) Run(context.Context, *pipeline.Case) error { panic("boom in " + p.name) }

// TestConformancePanicInRequirement: when a stage's requirement panics,
// the executor fails the requirement with E-EVL-099 and skips the stage
// with "failed prerequisites"; Report still runs and finishes the case.
func TestConformancePanicInRequirement(t *testing.T) {
	for _, n := range table(t, nil) {
		if len(n.Requires) == 0 {
			continue
		}
		dep := n.Requires[len(n.Requires)-1]
		t.Run(n.Name+"/"+dep, func(t *testing.T) {
			c := newCase(t, "a")
			execute(t, table(t, map[string]pipeline.Stage{dep: panicking{dep}}), context.Background(), c)
			if r, _ := c.Stage(dep); r.Outcome != pipeline.Failed || errcode.Code(r.Err) != errcode.Internal {
				t.Errorf("%s: %s %v, want failed with E-EVL-099", dep, r.Outcome, r.Err)
			}
			r, _ := c.Stage(n.Name)
			switch {
			case n.RunDespiteFailure:
				if r.Outcome == pipeline.Skipped || (r.Err != nil && errcode.Code(r.Err) == "") {
					t.Errorf("%s: %s %v, want it run, with no uncoded error", r.Stage, r.Outcome, r.Err)
				}
			case r.Outcome != pipeline.Skipped || errcode.Code(r.Err) != errcode.Prerequisite:
				t.Errorf("%s: %s %v, want skipped with failed prerequisites", r.Stage, r.Outcome, r.Err)
			}
			if v := c.Verdict(); v.Status != pipeline.StatusError || v.Stage != dep {
				t.Errorf("verdict %+v, want error at %s", v, dep)
			}
		})
	}
}
