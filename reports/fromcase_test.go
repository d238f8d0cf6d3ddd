package reports

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestFromCaseEventRows: each trace line is an events row with its own
// JSON, turn and tool name, though the rows share their allocations.
func TestFromCaseEventRows(t *testing.T) {
	at := time.UnixMilli(1764446400000)
	w, err := trace.Create(filepath.Join(t.TempDir(), "trace.jsonl"), "ses_1", func() time.Time { return at })
	if err != nil {
		t.Fatal(err)
	}
	tool := "search"
	for _, err := range []error{
		w.SessionStart(trace.SessionStart{CapsuleName: "c"}),
		w.Inference(trace.Inference{Turn: 1, Decision: "tool_call", ToolName: &tool}),
		w.ToolCall(trace.ToolCall{Turn: 1, ToolName: "search", Input: []byte(`{"q":"<&>"}`)}),
		w.Inference(trace.Inference{Turn: 2, Decision: "end_turn"}),
		w.Close(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	c := &pipeline.Case{RunID: "r", ID: "c", Epoch: 2, Attempt: 3, SessionID: "ses_1", Stages: []pipeline.StageResult{
		{Stage: "loop", Outcome: pipeline.Ran, Duration: 1500 * time.Microsecond},
		{Stage: "report", Outcome: pipeline.Skipped, Duration: time.Millisecond},
	}}
	row, events := FromCase(CaseRun{Case: c, Trace: w}, "/")
	if row.LoopMS == nil || *row.LoopMS != 1.5 || row.ReportMS != nil || row.DurationMS != 2.5 {
		t.Errorf("loop_ms %v, report_ms %v, duration_ms %v, want 1.5, nil, 2.5", row.LoopMS, row.ReportMS, row.DurationMS)
	}
	lines := w.Lines()
	if len(events) != len(lines) {
		t.Fatalf("%d events rows, want %d", len(events), len(lines))
	}
	wantTurns := []int32{-1, 1, 1, 2}
	wantTools := []string{"", "search", "search", ""}
	for i, e := range events {
		if e.EventJSON != string(lines[i].JSON) || e.Seq != int32(i) || e.EventType != lines[i].Type || e.Attempt != 3 || e.Epoch != 2 {
			t.Errorf("row %d: %+v, want line %s", i, e, lines[i].JSON)
		}
		if got := derefOr(e.Turn, -1); got != wantTurns[i] {
			t.Errorf("row %d: turn %d, want %d", i, got, wantTurns[i])
		}
		if got := derefOr(e.ToolName, ""); got != wantTools[i] {
			t.Errorf("row %d: tool %q, want %q", i, got, wantTools[i])
		}
	}
	*events[1].Turn = 9 // a row's turn is its own
	if *events[2].Turn != 1 {
		t.Errorf("rows share a turn")
	}
}

func derefOr[T any](p *T, none T) T {
	if p == nil {
		return none
	}
	return *p
}
