package trace

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkTrivialSession writes one trivial case's trace (session_start,
// two inferences, a tool call, session_end) to a fresh file and closes it:
// what every case of the bench harness's overhead suite writes.
func BenchmarkTrivialSession(b *testing.B) {
	dir := b.TempDir()
	tool := "ok"
	out := "ok"
	now := func() time.Time { return time.UnixMilli(1764446400000) }
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w, err := Create(filepath.Join(dir, "trace.jsonl"), "ses_0193f1e2a7b84c5d9e0f1a2b3c4d5e6f", now)
		if err != nil {
			b.Fatal(err)
		}
		err = firstErr(
			w.SessionStart(SessionStart{CapsuleName: "bench", CapsuleVersion: "0.1.0", Model: "bench-model", MaxTurns: 8,
				ToolsDeclared: []string{"ok"}, ContainmentDeclared: "advisory", ContainmentAchieved: "advisory",
				EffectiveGrants: json.RawMessage(`{}`), SystemPromptSource: "inline"}),
			w.Inference(Inference{Turn: 1, InputTokens: 100, OutputTokens: 10, Decision: "tool_call", ToolName: &tool, TokensSource: "provider"}),
			w.ToolCall(ToolCall{Turn: 1, ToolName: "ok", Input: []byte(`{"q":"x"}`), InputBytes: 9, Output: &out, OutputBytes: 2, Status: "passed"}),
			w.Inference(Inference{Turn: 2, InputTokens: 120, OutputTokens: 5, Decision: "end_turn", TokensSource: "provider"}),
			w.SessionEnd("ok"),
			w.Close(),
		)
		if err != nil {
			b.Fatal(err)
		}
		if len(w.Lines()) != 5 {
			b.Fatalf("%d lines, want 5", len(w.Lines()))
		}
		i++
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
