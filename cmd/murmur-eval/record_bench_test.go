package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/scoring"
	stagesession "github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/report"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// benchCase is a finished one-task case as the collector gets it: the
// seven stages ran, the trace has eight lines of two turns with two tool
// calls, and one scorer scored it.
func benchCase(tb testing.TB) *pipeline.Case {
	tb.Helper()
	dir := tb.TempDir()
	at := time.UnixMilli(1764446400000)
	now := func() time.Time { at = at.Add(7 * time.Millisecond); return at }
	w, err := trace.Create(filepath.Join(dir, "trace.jsonl"), "ses_0193f1e2a7b84c5d9e0f1a2b3c4d5e6f", now)
	if err != nil {
		tb.Fatal(err)
	}
	tool, out, sha := "search", `{"hits":[{"title":"Go <1.26> & json","url":"https://go.dev/doc"}]}`, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	err = firstErr(
		w.SessionStart(trace.SessionStart{CapsuleName: "bench", CapsuleVersion: "0.1.0", Model: "claude-sonnet-4-5", MaxTurns: 8,
			Capabilities: []string{"tools", "network"}, ToolsDeclared: []string{"search", "fetch"}, ContainmentDeclared: "advisory",
			ContainmentAchieved: "advisory", EffectiveGrants: json.RawMessage(`{"network":{"allow":["api.example.com:443"]},"files":{"read":["/workspace"]}}`),
			SystemPromptSource: "inline", SystemPromptSHA256: &sha}),
		w.TaskStart(trace.TaskStart{TaskID: "task_01", ContextID: "ctx_01", Source: "dataset", MessagePartsBytes: 412}),
		w.Inference(trace.Inference{Turn: 1, InputTokens: 1834, OutputTokens: 61, Decision: "tool_call", ToolName: &tool, TokensSource: "cl100k_base"}),
		w.ToolCall(trace.ToolCall{Turn: 1, ToolName: "search", Input: []byte(`{"query":"encoding/json escaping \"<\" and \"&\""}`), InputBytes: 48,
			Output: &out, OutputBytes: len(out), DurationMS: 3, Status: "passed", StateEffect: "read"}),
		w.Inference(trace.Inference{Turn: 2, InputTokens: 1990, OutputTokens: 44, Decision: "tool_call", ToolName: &tool, TokensSource: "cl100k_base"}),
		w.ToolCall(trace.ToolCall{Turn: 2, ToolName: "search", Input: []byte(`{"query":"U+2028 in JSON strings"}`), InputBytes: 34,
			Output: &out, OutputBytes: len(out), DurationMS: 2, Status: "passed", StateEffect: "read"}),
		w.Inference(trace.Inference{Turn: 3, InputTokens: 2150, OutputTokens: 230, Decision: "end_turn", TokensSource: "cl100k_base"}),
		w.TaskEnd(trace.TaskEnd{TaskID: "task_01", ExitStatus: "ok", DurationMS: 41, Turns: 3, InputTokens: 5974, OutputTokens: 335, ToolCalls: 2}),
		w.SessionEnd(trace.ExitOK),
		w.Close(),
	)
	if err != nil {
		tb.Fatal(err)
	}
	c := &pipeline.Case{RunID: "run_0193f1e2a7b84c5d", ID: "login-3", Epoch: 1, Attempt: 1, SessionID: "ses_0193f1e2a7b84c5d9e0f1a2b3c4d5e6f",
		SessionDir: filepath.Join(dir, "sessions", "login-3"), StartedAt: time.UnixMilli(1764446400000)}
	for i, name := range []string{"resolve", "verify", "stage", "contain", "launch", "loop", "report"} {
		c.Stages = append(c.Stages, pipeline.StageResult{Stage: name, Outcome: pipeline.Ran, Duration: time.Duration(i+1)*1234567 + 89})
	}
	pipeline.Store(c, resolve.Result, &resolve.Capsule{Manifest: &capsule.Manifest{Name: "bench", Version: "0.1.0",
		Inference: &capsule.Inference{Model: "claude-sonnet-4-5"}}})
	pipeline.Store(c, contain.Result, &contain.Policy{Declared: "advisory", Achieved: "advisory"})
	pipeline.Store(c, launch.Result, &stagesession.Session{Trace: w})
	pipeline.Store(c, loop.Result, &loop.Outcome{ExitStatus: trace.ExitOK, TaskExit: "ok"})
	diff := int64(1832)
	pipeline.Store(c, report.Result, &report.Report{DiffBytes: &diff, Scores: []scoring.Score{
		{Name: "answer", Type: "result_contains", Pass: true, Value: 1, Reason: `result contains "go.dev"`}}})
	return c
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkRecordFromCase turns a finished case into its rows, as the
// collector does for every case.
func BenchmarkRecordFromCase(b *testing.B) {
	c := benchCase(b)
	out := filepath.Dir(filepath.Dir(c.SessionDir))
	b.ReportAllocs()
	for b.Loop() {
		if rec := collect.Record(c, out, stages.CaseRun); len(rec.Final().Events) != 9 {
			b.Fatalf("%d events, want 9", len(rec.Final().Events))
		}
	}
}

// BenchmarkEntryIn encodes a finished case's record into the collector's
// reused buffer: the journal line of every case.
func BenchmarkEntryIn(b *testing.B) {
	c := benchCase(b)
	rec := collect.Record(c, filepath.Dir(filepath.Dir(c.SessionDir)), stages.CaseRun)
	e, err := rec.EntryIn(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(e.Record)))
	b.ReportAllocs()
	for b.Loop() {
		if e, err = rec.EntryIn(e.Record[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordMarshal is BenchmarkEntryIn's record by encoding/json, as
// EntryIn encoded it before recordjson.go: the reference it is measured by.
func BenchmarkRecordMarshal(b *testing.B) {
	c := benchCase(b)
	rec := collect.Record(c, filepath.Dir(filepath.Dir(c.SessionDir)), stages.CaseRun)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := enc.Encode(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len() - 1))
}
