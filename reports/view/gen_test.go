package view

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// genCase is one case of a generated run: its answer's text, a tool's
// output, whether it passed, and how big a trace it leaves.
type genCase struct {
	id         string
	answer     string
	toolOutput string
	passed     bool
	traceBytes int  // a trace padded to about this size; 0 for a short one
	noTrans    bool // no logs/transcript.jsonl (a run made before one was kept)
	diff       string
	model      string   // the row's model; "" for none
	cost       *float64 // the row's cost_usd
	estimated  bool     // cost_estimated
	judgeCost  *float64 // an llm_judge score priced at this cost
	judgeModel string   // an llm_judge score by this model (with judgeCost or without a price)
}

// genRun writes a run folder at dir with the cases: results.parquet,
// scores.parquet and a session folder per case, as a run leaves them.
func genRun(t testing.TB, dir, runID string, cases []genCase) {
	t.Helper()
	var results []reports.ResultRow
	var scores []reports.ScoreRow
	for i, c := range cases {
		sid := fmt.Sprintf("ses_%s_%06d", runID, i)
		status, result := reports.StatusFailed, reports.ResultFail
		if c.passed {
			status, result = reports.StatusPassed, reports.ResultPass
		}
		loop := float64(10 + i%50)
		exit := "ok"
		results = append(results, reports.ResultRow{RunID: runID, CaseID: c.id, Epoch: 1, Attempt: 1, SessionID: sid,
			Status: status, ExitStatus: &exit, Turns: 2, ToolCalls: 1, InputTokens: int64(400 + i%300), OutputTokens: 50,
			StartedAt: time.UnixMilli(1796474016155), DurationMS: loop + 2, LoopMS: &loop,
			CapsuleName: "gen", CapsuleVersion: "1.0.0", SessionDir: "sessions/" + sid, CostUSD: c.cost, CostEstimated: c.estimated})
		if c.model != "" {
			results[len(results)-1].Model = &c.model
		}
		scores = append(scores, reports.ScoreRow{RunID: runID, CaseID: c.id, Epoch: 1, SessionID: sid, Attempt: 1,
			Scorer: "result_contains", ScorerType: "builtin", Result: result, Score: map[bool]float64{true: 1}[c.passed],
			Reason: fmt.Sprintf("result lacks %q", "42")})
		if c.judgeModel != "" {
			scores = append(scores, reports.ScoreRow{RunID: runID, CaseID: c.id, Epoch: 1, SessionID: sid, Attempt: 1,
				Scorer: "judge", ScorerType: "llm_judge", Result: result, Score: map[bool]float64{true: 1}[c.passed],
				Reason: "the judge says so", JudgeModel: &c.judgeModel, JudgeCostUSD: c.judgeCost})
		}
		writeSession(t, filepath.Join(dir, "sessions", sid), c)
	}
	if err := parquet.WriteFile(filepath.Join(dir, reports.ResultsFile), results); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(filepath.Join(dir, reports.ScoresFile), scores); err != nil {
		t.Fatal(err)
	}
}

// writeSession writes a session folder: task, transcript (a tool call,
// then the answer), trace, scores and result.
func writeSession(t testing.TB, dir string, c genCase) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	var tr strings.Builder
	tr.WriteString(line(transcript.Entry{Kind: transcript.KindStart, Attempt: 1, Model: "m", Tools: []string{"calc"}, Task: "What is 6 times 7?",
		System: "[Capsule]\nWorkdir: " + dir + "\nBe careful."}))
	call, _ := json.Marshal([]map[string]any{{"type": "tool_call", "id": "c1", "name": "calc", "input": map[string]string{"expression": "6*7"}}})
	tr.WriteString(line(transcript.Entry{Kind: transcript.KindTurn, Attempt: 1, Turn: 0, RequestSHA256: "aaaa", StopReason: "tool_call", Content: call}))
	tr.WriteString(line(transcript.Entry{Kind: transcript.KindToolResult, Attempt: 1, Turn: 0, ToolCallID: "c1", Name: "calc", Output: c.toolOutput}))
	text, _ := json.Marshal([]map[string]any{{"type": "text", "text": c.answer}})
	tr.WriteString(line(transcript.Entry{Kind: transcript.KindTurn, Attempt: 1, Turn: 1, RequestSHA256: "bbbb", StopReason: "end_turn", Content: text}))
	tr.WriteString(line(transcript.Entry{Kind: transcript.KindEnd, ExitStatus: "ok", Result: c.answer}))

	var trace strings.Builder
	trace.WriteString(line(map[string]any{"event_type": "task_start"}))
	trace.WriteString(line(map[string]any{"event_type": "inference", "turn": 0, "decision": "tool_call"}))
	trace.WriteString(line(map[string]any{"event_type": "tool_call", "turn": 0, "tool_name": "calc", "input": map[string]string{"expression": "6*7"}, "output": c.toolOutput, "status": "ok"}))
	trace.WriteString(line(map[string]any{"event_type": "network_denied", "turn": 0, "host": "evil.example"}))
	pad := strings.Repeat("x", 4000)
	for trace.Len() < c.traceBytes {
		trace.WriteString(line(map[string]any{"event_type": "inference_retry", "turn": 1, "message": pad}))
	}
	trace.WriteString(line(map[string]any{"event_type": "inference", "turn": 1, "decision": "end_turn"}))
	files := map[string]string{
		"task.md":           "What is 6 times 7?\n",
		"trace.jsonl":       trace.String(),
		"out/result.txt":    c.answer,
		transcript.FileName: tr.String(),
	}
	if c.diff != "" {
		files["out/workspace.diff"] = c.diff
	}
	if c.noTrans {
		delete(files, transcript.FileName)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// manyCases are n ordinary priced cases, every third failing.
func manyCases(n int) []genCase {
	out := make([]genCase, n)
	for i := range out {
		cost := 0.0012 + float64(i%500)*0.000071 // a priced case, as a run with prices has
		out[i] = genCase{id: fmt.Sprintf("case-%05d", i), answer: "6 times 7 is 42.", toolOutput: "42", passed: i%3 != 0, cost: &cost}
	}
	return out
}
