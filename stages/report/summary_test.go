package report

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestSummaryIsWhatTheLinesSay: the scorers' view of a trace, taken from
// the writer, is what parsing its lines back gives (the last session_end
// wins, a hook's inference after it does not count, skills are observed).
func TestSummaryIsWhatTheLinesSay(t *testing.T) {
	ms := int64(1_700_000_000_000)
	clock := func() time.Time { ms += 7; return time.UnixMilli(ms) }
	tw, err := trace.Create(filepath.Join(t.TempDir(), "trace.jsonl"), "ses_x", clock)
	if err != nil {
		t.Fatal(err)
	}
	defer tw.Close()
	for _, e := range []error{
		tw.TaskStart(trace.TaskStart{TaskID: "tsk_1"}),
		tw.SessionStart(trace.SessionStart{}),
		tw.Inference(trace.Inference{Turn: 0, InputTokens: 100, OutputTokens: 10}),
		tw.ToolCall(trace.ToolCall{Turn: 0, ToolName: "calc", Input: json.RawMessage(`{}`), Status: "error"}),
		tw.SkillCall(trace.SkillCall{Turn: 0, SkillName: "guide", Status: "ok"}),
		tw.SessionEnd(trace.ExitFailed),
		tw.SessionStart(trace.SessionStart{}),
		tw.Inference(trace.Inference{Turn: 1, InputTokens: 200, OutputTokens: 20}),
		tw.ToolCall(trace.ToolCall{Turn: 1, ToolName: "notes", Input: json.RawMessage(`{}`), Status: "ok"}),
		tw.SessionEnd(trace.ExitOK),
		tw.TaskEnd(trace.TaskEnd{TaskID: "tsk_1", ExitStatus: "ok"}),
		tw.Inference(trace.Inference{Turn: 1, InputTokens: 5, OutputTokens: 5, Origin: "hook:judge"}),
	} {
		if e != nil {
			t.Fatal(e)
		}
	}
	raw := make([][]byte, 0, len(tw.Lines()))
	for _, l := range tw.Lines() {
		raw = append(raw, l.JSON)
	}
	want, err := scoring.SummarizeTrace(raw)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, Summary(tw)); diff != "" {
		t.Errorf("Summary (-parsed +written):\n%s", diff)
	}
}
