package pipeline

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// held is a result that holds something open: Close appends its name to
// log and returns err (or panics when err is errPanic).
type held struct {
	name string
	log  *[]string
	err  error
}

var errPanic = errors.New("panic")

func (h *held) Close() error {
	*h.log = append(*h.log, h.name)
	if h.err == errPanic {
		panic("boom in close")
	}
	return h.err
}

var (
	sharedKey = NewKey[*held]("shared")
	openKey   = NewKey[*held]("open")
	useKey    = NewKey[*held]("use")
)

// closerGraph is shared → open → use → last (runs despite failure): shared
// and open store a held result, use stores one too unless useErr fails it,
// and last records whether the results were still open when it ran.
func closerGraph(t *testing.T, log *[]string, sharedRes *held, openErr, useErr error) *Graph {
	t.Helper()
	g, err := NewGraph(
		Node{Decl: Decl{Name: "shared", Produces: sharedKey, Shared: true}, Stage: fakeStage{name: "shared", run: func(_ context.Context, c *Case) error {
			Store(c, sharedKey, sharedRes)
			return nil
		}}},
		Node{Decl: Decl{Name: "open", Produces: openKey, Requires: []string{"shared"}}, Stage: fakeStage{name: "open", run: func(_ context.Context, c *Case) error {
			Store(c, openKey, &held{name: "open", log: log, err: openErr})
			return nil
		}}},
		Node{Decl: Decl{Name: "use", Produces: useKey, Requires: []string{"open"}}, Stage: fakeStage{name: "use", run: func(_ context.Context, c *Case) error {
			if useErr != nil {
				return useErr
			}
			Store(c, useKey, &held{name: "use", log: log})
			return nil
		}}},
		Node{Decl: Decl{Name: "last", Requires: []string{"open", "use"}, RunDespiteFailure: true}, Stage: fakeStage{name: "last", run: func(context.Context, *Case) error {
			*log = append(*log, "last ran")
			return nil
		}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestExecuteClosesResultsInReverseOrder: a case's results that hold
// something are closed after its last stage, the latest stage's first;
// the shared stage's result is not closed by the case but by Graph.Close,
// once however many cases stored it.
func TestExecuteClosesResultsInReverseOrder(t *testing.T) {
	var log []string
	shared := &held{name: "shared", log: &log}
	g := closerGraph(t, &log, shared, nil, nil)
	for range 2 {
		c := &Case{ID: "a"}
		g.Execute(context.Background(), c)
		if v := c.Verdict(); v.Status == StatusError {
			t.Fatalf("verdict %+v", v)
		}
	}
	want := []string{"last ran", "use", "open", "last ran", "use", "open"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("close order (-want +got):\n%s", diff)
	}
	log = nil
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil { // forgotten: not closed twice
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"shared"}, log); diff != "" {
		t.Errorf("run close (-want +got):\n%s", diff)
	}
}

// TestPrepareKeepsSharedResultsForClose: what Graph.Prepare made is the
// run's, closed by Graph.Close.
func TestPrepareKeepsSharedResultsForClose(t *testing.T) {
	var log []string
	g := closerGraph(t, &log, &held{name: "shared", log: &log}, nil, nil)
	if _, err := g.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(log) != 0 {
		t.Fatalf("Prepare closed %v", log)
	}
	if err := g.Close(); err != nil || !cmp.Equal(log, []string{"shared"}) {
		t.Errorf("Close = %v, closed %v; want shared", err, log)
	}
}

// TestCloseFailureFailsTheProducingStage: a result that fails to close
// fails the stage that stored it, with the close's own code, and the case
// is an error there; a stage that had already failed keeps its first
// error; a panic in Close is E-EVL-099.
func TestCloseFailureFailsTheProducingStage(t *testing.T) {
	refused := errcode.New(errcode.SessionFile, "trace.jsonl replaced")
	for _, tc := range []struct {
		name           string
		openErr        error
		useErr         error
		wantStage      string
		wantCode       string
		wantOpenCode   string
		wantOpenFailed bool
	}{
		{name: "close fails", openErr: refused, wantStage: "open", wantCode: errcode.SessionFile, wantOpenCode: errcode.SessionFile, wantOpenFailed: true},
		{name: "close panics", openErr: errPanic, wantStage: "open", wantCode: errcode.Internal, wantOpenCode: errcode.Internal, wantOpenFailed: true},
		{name: "a later stage failed first", openErr: refused, useErr: errcode.New(errcode.RunAgentLoop, "x"),
			wantStage: "open", wantCode: errcode.SessionFile, wantOpenCode: errcode.SessionFile, wantOpenFailed: true},
		{name: "closes cleanly after a failure", useErr: errcode.New(errcode.RunAgentLoop, "x"), wantStage: "use", wantCode: errcode.RunAgentLoop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			g := closerGraph(t, &log, &held{name: "shared", log: &log}, tc.openErr, tc.useErr)
			c := &Case{ID: "a"}
			g.Execute(context.Background(), c)
			v := c.Verdict()
			if v.Status != StatusError || v.Stage != tc.wantStage || v.Code != tc.wantCode {
				t.Errorf("verdict %+v, want error at %s with %s", v, tc.wantStage, tc.wantCode)
			}
			r, _ := c.Stage("open")
			if (r.Outcome == Failed) != tc.wantOpenFailed || errcode.Code(r.Err) != tc.wantOpenCode {
				t.Errorf("open: %s %v", r.Outcome, r.Err)
			}
			if last, _ := c.Stage("last"); last.Outcome != Ran {
				t.Errorf("last: %s %v, want ran", last.Outcome, last.Err)
			}
		})
	}
}

// TestCloseFailureKeepsAFailedStagesFirstError: a stage that failed after
// storing its result keeps its own error when the result then fails to
// close too.
func TestCloseFailureKeepsAFailedStagesFirstError(t *testing.T) {
	var log []string
	first := errcode.New(errcode.RunAgentLoop, "hook failed")
	g, err := NewGraph(Node{Decl: Decl{Name: "open", Produces: openKey}, Stage: fakeStage{name: "open", run: func(_ context.Context, c *Case) error {
		Store(c, openKey, &held{name: "open", log: &log, err: errcode.New(errcode.IO, "close")})
		return first
	}}})
	if err != nil {
		t.Fatal(err)
	}
	c := &Case{ID: "a"}
	g.Execute(context.Background(), c)
	if r, _ := c.Stage("open"); !errors.Is(r.Err, first) {
		t.Errorf("open: %v, want its own error", r.Err)
	}
	if !cmp.Equal(log, []string{"open"}) {
		t.Errorf("closed %v, want the result closed all the same", log)
	}
}

// TestGraphRefusesAStageUnderAnotherDecl: the stage placed under a
// declaration must answer to its name.
func TestGraphRefusesAStageUnderAnotherDecl(t *testing.T) {
	_, err := NewGraph(Node{Decl: Decl{Name: "verify"}, Stage: fakeStage{name: "resolve"}})
	if !errcode.Is(err, errcode.Internal) {
		t.Errorf("NewGraph = %v, want %s", err, errcode.Internal)
	}
}
