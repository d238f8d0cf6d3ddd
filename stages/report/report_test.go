package report

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// The keys of Launch's and Loop's results, as the stage table gives them
// to Report (package stages).
var (
	sessionKey = pipeline.NewKey[*session.Session]("launch")
	outcomeKey = pipeline.NewKey[*session.Outcome]("loop")
)

// testReads are what Report reads in these tests: the session and the
// outcome.
func testReads() Reads { return Reads{Session: sessionKey, Outcome: outcomeKey} }

// testStage is a Report stage reading testReads, with no check launcher.
func testStage() Stage { return New(Options{Reads: testReads()}) }

// endedCase is a case whose loop ran two turns and ended the session with
// exit, answering answer.
func endedCase(t *testing.T, exit, answer, expected string) *pipeline.Case {
	t.Helper()
	dir := t.TempDir()
	clock := time.UnixMilli(1_700_000_000_000)
	tw, err := trace.Create(filepath.Join(dir, "trace.jsonl"), "ses_x", func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	calc := "calc"
	for _, e := range []error{
		tw.SessionStart(trace.SessionStart{}),
		tw.Inference(trace.Inference{Turn: 0, InputTokens: 100, OutputTokens: 10, Decision: "tool_call", ToolName: &calc}),
		tw.ToolCall(trace.ToolCall{Turn: 0, ToolName: "calc", Input: json.RawMessage(`{}`), Status: "ok"}),
		tw.Inference(trace.Inference{Turn: 1, InputTokens: 200, OutputTokens: 20, Decision: "end_turn"}),
		tw.SessionEnd(exit),
	} {
		if e != nil {
			t.Fatal(e)
		}
	}
	c := &pipeline.Case{
		ID:         "case-1",
		Input:      datasets.Case{ID: "case-1", Expected: json.RawMessage(expected)},
		SessionID:  "ses_x",
		SessionDir: dir,
		Stages:     []pipeline.StageResult{{Stage: "loop", Outcome: pipeline.Ran}},
	}
	pipeline.Store(c, sessionKey, &session.Session{Trace: tw})
	pipeline.Store(c, outcomeKey, &session.Outcome{ExitStatus: exit, ResultText: answer})
	return c
}

// scoresOf are the scores Report kept, nil when it stored no result.
func scoresOf(c *pipeline.Case) []scoring.Score {
	if r, ok := pipeline.Lookup(c, Result); ok {
		return r.Scores
	}
	return nil
}

func TestReportScoresAndWritesEvalJSONL(t *testing.T) {
	c := endedCase(t, trace.ExitOK, "6 times 7 is 42.", `{"result_contains": "42"}`)
	ds := "qs"
	plan := &scoring.Plan{Config: scoring.Config{DatasetID: &ds, Scorers: []scoring.ScorerSpec{{Type: scoring.TypeMaxTurns, Name: "turns", Max: 1}}}}
	if err := testStage().WithPlan(plan).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	want := []scoring.Score{
		{Name: "turns", Type: scoring.TypeMaxTurns, Pass: false, Value: 0, Reason: "turns=2 max=1"},
		{Name: "result_contains", Type: scoring.TypeResultContains, Pass: true, Value: 1, Reason: `result contains "42"`, Expected: true},
	}
	if diff := cmp.Diff(want, scoresOf(c)); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
	if v := pipeline.Judge(c); v.Status != pipeline.StatusFailed {
		t.Errorf("status %s, want failed", v.Status)
	}
	f, err := os.Open(filepath.Join(c.SessionDir, scoring.EvalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := scoring.ReadEvalRecords(f)
	if err != nil {
		t.Fatalf("eval.jsonl does not parse as murmur's: %v", err)
	}
	if len(recs) != 3 || recs[0].Turn != 2 || recs[0].TS != 1_700_000_000_000 || recs[2].Overall != "fail" || *recs[2].DatasetID != "qs" {
		t.Errorf("eval.jsonl records: %+v", recs)
	}
	if got, _ := os.ReadFile(filepath.Join(c.SessionDir, "out", "result.txt")); string(got) != "6 times 7 is 42." {
		t.Errorf("result.txt = %q", got)
	}
}

func TestReportDoesNotScoreAFailedCase(t *testing.T) {
	c := endedCase(t, trace.ExitOK, "42", "")
	c.Stages = append(c.Stages, pipeline.StageResult{Stage: "loop", Outcome: pipeline.Failed, Err: errcode.New(errcode.RunAgentLoop, "x")})
	if err := testStage().Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if scoresOf(c) != nil {
		t.Errorf("scores %v, want none for a case with a failed stage", scoresOf(c))
	}
	if _, err := os.Stat(filepath.Join(c.SessionDir, scoring.EvalFile)); err == nil {
		t.Errorf("eval.jsonl written for an unscored case")
	}
}

func TestReportDefaultsToExitOK(t *testing.T) {
	c := endedCase(t, trace.ExitMaxTurnsReached, "error: inference loop exceeded 2 turns", "")
	if err := testStage().Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if len(scoresOf(c)) != 1 || scoresOf(c)[0].Name != "exit_ok" || scoresOf(c)[0].Pass {
		t.Errorf("scores %+v, want exit_ok failing", scoresOf(c))
	}
}

func TestReportCheckThatCannotStartIsAnError(t *testing.T) {
	c := endedCase(t, trace.ExitOK, "42", `{"result_contains": "42", "check": ["no-such-check-binary"]}`)
	err := testStage().Run(context.Background(), c)
	if !errcode.Is(err, errcode.IONotFound) {
		t.Fatalf("Run = %v, want %s", err, errcode.IONotFound)
	}
	c.Stages = append(c.Stages, pipeline.StageResult{Stage: Name, Outcome: pipeline.Failed, Err: err})
	if v := pipeline.Judge(c); v.Status != pipeline.StatusError || v.Stage != Name {
		t.Errorf("verdict %+v, want error at report", v)
	}
	if scoresOf(c) != nil {
		t.Errorf("scores %+v, want none for a case that got no verdict", scoresOf(c))
	}
	if _, err := os.Stat(filepath.Join(c.SessionDir, scoring.EvalFile)); err == nil {
		t.Errorf("eval.jsonl written for a case whose check could not start")
	}
}

// TestEvalFileErrorKeepsItsCode: eval.jsonl is written through sessionfs;
// a session folder gone by then fails the stage with sessionfs's own code
// (E-IO-001), which the wrapper keeps: it was re-coded E-IO-003 before
// (issue 34). The case keeps no scores.
func TestEvalFileErrorKeepsItsCode(t *testing.T) {
	c := endedCase(t, trace.ExitOK, "42", `{"result_contains": "42"}`)
	if err := os.RemoveAll(c.SessionDir); err != nil {
		t.Fatal(err)
	}
	err := testStage().Run(context.Background(), c)
	if got := errcode.Code(err); got != errcode.IONotFound {
		t.Errorf("Run = %v (code %q), want %s", err, got, errcode.IONotFound)
	}
	if scoresOf(c) != nil {
		t.Errorf("scores %+v, want none", scoresOf(c))
	}
}

// TestReportReadsOnlyItsReads: Report finds the session and the outcome
// through the keys the table gives it; a zero Reads reads nothing, and a
// case with results under other keys is not scored.
func TestReportReadsOnlyItsReads(t *testing.T) {
	c := endedCase(t, trace.ExitOK, "42", "")
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if scoresOf(c) != nil {
		t.Errorf("scores %+v, want none without Reads", scoresOf(c))
	}
	if got, _ := os.ReadFile(filepath.Join(c.SessionDir, "out", "result.txt")); string(got) != "" {
		t.Errorf("result.txt = %q, want empty without the outcome", got)
	}
}
