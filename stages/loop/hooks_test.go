package loop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/internal/hooktest"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// withHooks gives the case a dispatcher over the named test hooks (see
// internal/hooktest/guest), each granted the session folder.
func withHooks(t *testing.T, c *pipeline.Case, manifest string, names ...string) {
	t.Helper()
	e := hooktest.Engine(t)
	var specs []hooks.Spec
	for _, n := range names {
		specs = append(specs, hooks.Spec{Name: n, Version: "0.1.0", Module: hooktest.Module(t),
			Manifest: []byte(manifest), Scope: "."})
	}
	set, err := hooks.Load(e, specs, hooks.Options{Deadline: 0})
	if err != nil {
		t.Fatal(err)
	}
	sessionOf(c).Hooks = set.Open(hooks.Case{SessionDir: c.SessionDir, CaseID: "c1"}, nil)
	if err := os.MkdirAll(filepath.Join(c.SessionDir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func allTypes(c *pipeline.Case) []string {
	var types []string
	for _, l := range sessionOf(c).Trace.Lines() {
		types = append(types, l.Type)
	}
	return types
}

func eventsOf(t *testing.T, c *pipeline.Case, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range sessionOf(c).Trace.Lines() {
		if l.Type != typ {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l.JSON, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

const endTurnSmall = `{"stop_reason":"end_turn","content":[{"type":"text","text":"42"}],"usage":{"input_tokens":10,"output_tokens":2}}`

// (a) A hook reopens once, then is satisfied: one task_reopened, task_end
// ok with reopen_count 1, task.md rewritten in murmur's words, and the
// second attempt sent the rewritten task.
func TestReopenOnceThenSatisfied(t *testing.T) {
	c, m := newCase(t, []string{endTurnSmall, endTurnSmall}, &fakeTools{})
	sessionOf(c).Config.MaxTaskReopens = 1
	withHooks(t, c, "binding: on-task-end\ncommit_policy: reopen-task\n", "reopen-once")
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	want := []string{"task_start", "session_start", "inference", "session_end", "task_reopened",
		"session_start", "inference", "session_end", "task_end"}
	if diff := cmp.Diff(want, allTypes(c)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	re := eventsOf(t, c, trace.TypeTaskReopened)[0]
	end := eventsOf(t, c, trace.TypeTaskEnd)[0]
	if re["hook_name"] != "reopen-once" || re["reason"] != "  Please also show your working.  " || re["reopen_number"] != 1.0 || re["task_id"] != end["task_id"] {
		t.Errorf("task_reopened = %v", re)
	}
	if end["exit_status"] != "ok" || end["reopen_count"] != 1.0 || end["turns"] != 2.0 {
		t.Errorf("task_end = %v", end)
	}
	wantTask := "What is 6*7?\n\n---\n\n# Reopen feedback\n\nThe previous attempt was not accepted. Address the following feedback, then continue.\n" +
		"\n## Reopen 1 — from hook `reopen-once`\n\nPlease also show your working.\n"
	got, _ := os.ReadFile(filepath.Join(c.SessionDir, "task.md"))
	if string(got) != wantTask {
		t.Errorf("task.md:\n%q\nwant\n%q", got, wantTask)
	}
	var sent []map[string]any
	_ = json.Unmarshal(m.requests[1].Messages[0].Content, &sent)
	if sent[0]["text"] != wantTask {
		t.Errorf("second attempt's task = %v", sent[0]["text"])
	}
	if outcomeOf(c).TaskExit != "ok" || outcomeOf(c).Reopens != 1 || outcomeOf(c).ExitStatus != "ok" {
		t.Errorf("outcome = %+v", outcomeOf(c))
	}
}

// (b) The budget runs out: max_task_reopens 1 and a hook that always
// reopens: two attempts, then task_end reopen_budget_exhausted.
func TestReopenBudgetExhausted(t *testing.T) {
	c, _ := newCase(t, []string{endTurnSmall, endTurnSmall, endTurnSmall}, &fakeTools{})
	sessionOf(c).Config.MaxTaskReopens = 1
	withHooks(t, c, "binding: on-task-end\ncommit_policy: reopen-task\n", "always-reopen")
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatalf("Run = %v: an exhausted budget is the model's failure, not the loop's", err)
	}
	if n := len(eventsOf(t, c, trace.TypeSessionStart)); n != 2 {
		t.Errorf("%d attempts, want 2", n)
	}
	end := eventsOf(t, c, trace.TypeTaskEnd)[0]
	if end["exit_status"] != "reopen_budget_exhausted" || end["reopen_count"] != 1.0 {
		t.Errorf("task_end = %v", end)
	}
	if outcomeOf(c).TaskExit != ExitReopenBudgetExhausted {
		t.Errorf("outcome = %+v", outcomeOf(c))
	}
	got, _ := os.ReadFile(filepath.Join(c.SessionDir, "task.md"))
	if strings.Count(string(got), "## Reopen ") != 1 {
		t.Errorf("task.md = %q, want one feedback section", got)
	}
}

// (c) Never past max_turns: each attempt gets the turns left, and a reopen
// with no turns left exhausts the budget.
func TestReopenNeverPastMaxTurns(t *testing.T) {
	c, m := newCase(t, []string{callCalc, endTurnSmall, endTurnSmall, endTurnSmall}, &fakeTools{})
	sessionOf(c).Config.MaxTaskReopens = 5 // max_turns 3 binds first
	withHooks(t, c, "binding: on-task-end\ncommit_policy: reopen-task\n", "always-reopen")
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	var maxTurns []float64
	for _, s := range eventsOf(t, c, trace.TypeSessionStart) {
		maxTurns = append(maxTurns, s["max_turns"].(float64))
	}
	if diff := cmp.Diff([]float64{3, 1}, maxTurns); diff != "" {
		t.Errorf("session_start max_turns (-want +got):\n%s", diff)
	}
	end := eventsOf(t, c, trace.TypeTaskEnd)[0]
	if end["exit_status"] != "reopen_budget_exhausted" || end["reopen_count"] != 1.0 || end["turns"] != 3.0 {
		t.Errorf("task_end = %v", end)
	}
	if len(m.requests) != 3 || sessionOf(c).Trace.Totals().TotalTurns != 3 {
		t.Errorf("%d turns, want 3 (max_turns)", len(m.requests))
	}
}

// TestUnsupportedArmTraced: the fault is written before session_end.
func TestUnsupportedArmTraced(t *testing.T) {
	c, _ := newCase(t, []string{endTurnSmall}, &fakeTools{})
	withHooks(t, c, "binding: on-inference\n", "bad-arm")
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	want := []string{"task_start", "session_start", "inference", "hook_dispatch_error", "session_end", "task_end"}
	if diff := cmp.Diff(want, allTypes(c)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	f := eventsOf(t, c, trace.TypeHookDispatchError)[0]
	if f["hook_name"] != "bad-arm" || f["event"] != "on-inference" || f["arm"] != "write-manifests" {
		t.Errorf("hook_dispatch_error = %v", f)
	}
}

// TestHookTrapIsNotFatal: a hook that panics on every event leaves the
// session as it would be without it.
func TestHookTrapIsNotFatal(t *testing.T) {
	c, _ := newCase(t, []string{callCalc, endTurn}, &fakeTools{})
	sessionOf(c).Config.MaxTaskReopens = 1
	withHooks(t, c, "", "panic")
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if outcomeOf(c).ExitStatus != "ok" || outcomeOf(c).TaskExit != "ok" {
		t.Errorf("outcome = %+v", outcomeOf(c))
	}
	l, _ := os.ReadFile(filepath.Join(c.SessionDir, "logs", "hook-panic.log"))
	for _, ev := range []string{"on-session-start", "on-task-start", "on-inference", "on-tool-call", "on-task-end", "on-session-end"} {
		if !strings.Contains(string(l), ev+": error: hook exited with status 2") {
			t.Errorf("hook-panic.log has no %s error:\n%s", ev, l)
		}
	}
}

func compactionCase(t *testing.T, hook string, responses ...string) (*pipeline.Case, *fakeModel) {
	c, m := newCase(t, responses, &fakeTools{})
	sessionOf(c).Config.ContextMaxTokens = 100
	sessionOf(c).Config.Compaction = session.CompactionConfig{Threshold: 0.5, Model: "m", DumpSummaries: true}
	if hook != "" {
		withHooks(t, c, "binding: on-compaction\ncommit_policy: replace-context\n", hook)
	} else if err := os.MkdirAll(filepath.Join(c.SessionDir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	return c, m
}

// TestCompactionReplacesContext: past the threshold the hook's summary
// replaces the conversation; the turn's tool exchange follows it. The
// threshold is met by murmur's count of the turn (cl100k_base over the
// payload and the response), not the provider's usage: the summary, the
// system prompt and the tool exchange are still past 50 tokens at turn 1,
// so the context is compacted again there, as murmur would.
func TestCompactionReplacesContext(t *testing.T) {
	c, m := compactionCase(t, "compact", callCalc, endTurnSmall)
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	comp := eventsOf(t, c, trace.TypeCompaction)
	inf := eventsOf(t, c, trace.TypeInference)
	if len(comp) != 2 || comp[0]["turn"] != 0.0 || comp[1]["turn"] != 1.0 || len(inf) != 2 {
		t.Fatalf("compaction events = %v", comp)
	}
	for i := range comp {
		if before := inf[i]["input_tokens"].(float64) + inf[i]["output_tokens"].(float64); comp[i]["tokens_before"] != before || inf[i]["tokens_source"] != "cl100k_base" {
			t.Errorf("compaction %d: tokens_before %v, want the turn's cl100k_base count %v (%v)", i, comp[i]["tokens_before"], before, inf[i])
		}
	}
	got, _ := json.Marshal(m.requests[1].Messages)
	want := `[{"content":[{"text":"Summary of 1 messages: the user asked for 6*7.","type":"text"}],"role":"user"},` +
		`{"content":[{"type":"tool_call","id":"c1","name":"calc","input":{"expression":"6*7"}}],"role":"assistant"},` +
		`{"content":[{"text":"42","type":"text"}],"is_error":false,"role":"tool","tool_call_id":"c1"}]`
	if string(got) != want {
		t.Errorf("messages after compaction:\n got %s\nwant %s", got, want)
	}
	dump, _ := os.ReadFile(filepath.Join(c.SessionDir, "out", "compaction-summaries.jsonl"))
	if !strings.Contains(string(dump), `"turn":0,`) || !strings.Contains(string(dump), `"summary":"Summary of 1 messages: the user asked for 6*7."`) {
		t.Errorf("compaction-summaries.jsonl = %s", dump)
	}
}

// TestCompactionHookErrFailsTheSession: murmur's one fatal hook error.
func TestCompactionHookErrFailsTheSession(t *testing.T) {
	c, _ := compactionCase(t, "compact-err", callCalc, endTurnSmall)
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if outcomeOf(c).ExitStatus != "failed" || outcomeOf(c).ResultText != "error: compaction hook failed: compact-err: summariser down" || outcomeOf(c).TaskExit != "ok" {
		t.Errorf("outcome = %+v", outcomeOf(c))
	}
}

// TestCompactionWithoutHookIsLogged: no replacement, the loop goes on and
// bootstrap.log says so each turn.
func TestCompactionWithoutHookIsLogged(t *testing.T) {
	c, _ := compactionCase(t, "", callCalc, endTurn)
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(c.SessionDir, "logs", "bootstrap.log"))
	if n := strings.Count(string(log), "[compaction] threshold reached but no hook returned replace-context; continuing without compaction\n"); n != 2 {
		t.Errorf("bootstrap.log = %q, want the line twice", log)
	}
	if outcomeOf(c).ExitStatus != "ok" {
		t.Errorf("outcome = %+v", outcomeOf(c))
	}
}

// TestToolMessagesRoundTrip: tool messages survive on-compaction only
// through the marker, and a replacement whose tool ids do not pair up is
// refused.
func TestToolMessagesRoundTrip(t *testing.T) {
	msgs := []inference.Message{
		inference.UserMessage("task"),
		inference.AssistantMessage(json.RawMessage(`[{"type":"tool_call","id":"c1","name":"calc","input":{}}]`)),
		inference.ToolMessage("c1", true, "boom"),
	}
	wrapped := toHookMessages(msgs)
	if !strings.HasPrefix(wrapped[2].Content, `{"__murmur_tool_msg__":true,"tool_call_id":"c1","is_error":true,"body":[`) {
		t.Errorf("wrapped tool message = %s", wrapped[2].Content)
	}
	back, ok := fromHookMessages(wrapped)
	if !ok {
		t.Fatal("round trip refused")
	}
	a, _ := json.Marshal(msgs)
	b, _ := json.Marshal(back)
	if string(a) != string(b) {
		t.Errorf("round trip:\n got %s\nwant %s", b, a)
	}
	if _, ok := fromHookMessages(wrapped[:2]); ok {
		t.Error("a tool call without its answer was accepted")
	}
	unmarked := append(wrapped[:2:2], hooks.Message{Role: "tool", Content: `[{"text":"42","type":"text"}]`})
	if _, ok := fromHookMessages(unmarked); ok {
		t.Error("a tool message without the marker was kept")
	}
	plain, ok := fromHookMessages([]hooks.Message{{Role: "user", Content: `{"a":1}`}, {Role: "assistant", Content: `not json`}})
	if !ok || string(plain[0].Content) != `[{"text":"{\"a\":1}","type":"text"}]` || string(plain[1].Content) != `[{"text":"not json","type":"text"}]` {
		t.Errorf("plain content = %s / %s", plain[0].Content, plain[1].Content)
	}
}

// TestHookRunInference: a judge hook asks the case's model through
// run_inference; its completions are traced as inference events with
// origin hook:<name>, count as turns of the task, and its answer reopens.
func TestHookRunInference(t *testing.T) {
	judgeNo := `{"stop_reason":"end_turn","content":[{"type":"text","text":"no, "},{"type":"text","text":"show the working"}],"usage":{"input_tokens":30,"output_tokens":4}}`
	judgeYes := `{"stop_reason":"end_turn","content":[{"type":"text","text":"yes"}]}`
	c, m := newCase(t, []string{endTurnSmall, judgeNo, endTurnSmall, judgeYes}, &fakeTools{})
	sessionOf(c).Config.MaxTaskReopens = 1
	withHooks(t, c, "binding: on-task-end\ncommit_policy: reopen-task\n", "ask-model")
	sessionOf(c).Hooks.UseModel(sessionOf(c).Model, "m")
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	want := []string{"task_start", "session_start", "inference", "session_end", "inference", "task_reopened",
		"session_start", "inference", "session_end", "inference", "task_end"}
	if diff := cmp.Diff(want, allTypes(c)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	infs := eventsOf(t, c, trace.TypeInference)
	if infs[1]["origin"] != "hook:ask-model" || infs[1]["model"] != "m" || infs[1]["decision"] != "end_turn" ||
		infs[1]["input_tokens"] != 30.0 || infs[1]["turn"] != 0.0 || infs[0]["origin"] != nil {
		t.Errorf("hook inference event = %v", infs[1])
	}
	re := eventsOf(t, c, trace.TypeTaskReopened)[0]
	if re["reason"] != "no, show the working" {
		t.Errorf("task_reopened = %v", re)
	}
	if s := eventsOf(t, c, trace.TypeSessionStart); s[1]["max_turns"] != 1.0 {
		t.Errorf("second attempt max_turns = %v, want 1 (hook completions count)", s[1]["max_turns"])
	}
	end := eventsOf(t, c, trace.TypeTaskEnd)[0]
	if end["exit_status"] != "ok" || end["turns"] != 4.0 || end["reopen_count"] != 1.0 {
		t.Errorf("task_end = %v", end)
	}
	hookReq := m.requests[1]
	if hookReq.System != "You are a strict judge." || hookReq.MaxTokens != 8192 || len(hookReq.Tools) != 0 || hookReq.Model != "m" {
		t.Errorf("hook request = %+v", hookReq)
	}
	if got, _ := json.Marshal(hookReq.Messages); string(got) != `[{"content":[{"text":"Accept the answer?","type":"text"}],"role":"user"}]` {
		t.Errorf("hook messages = %s", got)
	}
}
