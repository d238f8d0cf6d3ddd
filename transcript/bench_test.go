package transcript

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// BenchmarkCaseTranscript is what the transcript adds to a two-turn case
// (a tool call, then the answer) on the loop's path: each request's
// digest, the entries, and the file Report writes through sessionfs, into
// a fresh name as in a new session (the previous one removed, counted
// too), on tmpfs where there is one, as the benchmarks' run folders are.
func BenchmarkCaseTranscript(b *testing.B) {
	dir := b.TempDir()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err = os.MkdirTemp("/dev/shm", "transcript-bench-"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = os.RemoveAll(dir) })
	}
	if err := sessionfs.WriteFile(dir, "logs/x", nil, 0o644); err != nil {
		b.Fatal(err)
	}
	system := strings.Repeat("You are a careful assistant. ", 32) // about 900 bytes, as the quickstart's
	req := &inference.Request{MaxTokens: 1024, Model: "m", Params: json.RawMessage("{}"), System: system,
		Messages: []inference.Message{inference.UserMessage("What is 6 times 7?")},
		Tools:    []inference.Tool{{Name: "calc", Description: "evaluates arithmetic", Parameters: json.RawMessage(`{"type":"object","properties":{"expression":{"type":"string"}}}`)}}}
	call := json.RawMessage(`[{"type":"text","text":"I'll work that out."},{"type":"tool_call","id":"call_1","name":"calc","input":{"expression":"6*7"}}]`)
	answer := json.RawMessage(`[{"type":"text","text":"6 times 7 is 42."}]`)
	in, out := int64(612), int64(48)
	b.ReportAllocs()
	for b.Loop() {
		r := New()
		r.Start("m", system, []string{"calc"}, "What is 6 times 7?")
		r.Asking()
		r.Turn(0, inference.RequestDigest(req, dir), "tool_call", call, "", &in, &out)
		r.ToolResult(0, "call_1", "calc", false, "42", "")
		second := *req
		second.Messages = append(append([]inference.Message(nil), req.Messages...), inference.AssistantMessage(call), inference.ToolMessage("call_1", false, "42"))
		r.Asking()
		r.Turn(1, inference.RequestDigest(&second, dir), "end_turn", answer, "", &in, &out)
		r.End("ok", "6 times 7 is 42.")
		_ = os.Remove(filepath.Join(dir, filepath.FromSlash(FileName)))
		if err := sessionfs.WriteFile(dir, FileName, r.Encode(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
