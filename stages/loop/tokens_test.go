package loop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/tokens"
)

// counted stands, in an expected event, for a token count checked by
// normalizeCounts: the session folder's path is part of the system prompt,
// so a count varies with the test's temporary folder.
const counted = "counted"

// normalizeCounts checks that every inference event of evs carries murmur's
// cl100k_base counts (positive) and that session_end's totals are their
// sums, and replaces those numbers by counted.
func normalizeCounts(t *testing.T, evs []map[string]any) {
	t.Helper()
	var in, out float64
	for _, e := range evs {
		switch e["event_type"] {
		case "inference":
			i, _ := e["input_tokens"].(float64)
			o, _ := e["output_tokens"].(float64)
			if e["tokens_source"] != "cl100k_base" || i <= 0 || o <= 0 {
				t.Errorf("inference event %v: want positive cl100k_base counts", e)
			}
			in, out = in+i, out+o
			e["input_tokens"], e["output_tokens"] = counted, counted
		case "session_end":
			if e["total_input_tokens"] != in || e["total_output_tokens"] != out {
				t.Errorf("session_end %v: totals are not the sums %v, %v", e, in, out)
			}
			e["total_input_tokens"], e["total_output_tokens"] = counted, counted
		}
	}
}

// The counts are murmur's: cl100k_base over the payload as serde_json
// writes it (keys sorted at every level, no HTML escapes) and over the
// driver's response ({"content":…,"stop_reason":…}, no usage).
func TestTurnTokensCountMurmursBytes(t *testing.T) {
	req := &inference.Request{MaxTokens: 8192, Model: "m", Params: json.RawMessage("{}"), System: "a <b> & c",
		Messages: []inference.Message{inference.UserMessage("What is 6*7?"),
			inference.AssistantMessage(json.RawMessage(`[{"type": "tool_call", "name": "calc", "id": "c1", "input": {"z": 1, "a": 2.50}}]`))},
		Tools: []inference.Tool{{Name: "calc", Description: "adds", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}}
	payload, err := serdeJSON(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"max_tokens":8192,"messages":[{"content":[{"text":"What is 6*7?","type":"text"}],"role":"user"},` +
		`{"content":[{"id":"c1","input":{"a":2.50,"z":1},"name":"calc","type":"tool_call"}],"role":"assistant"}],` +
		`"model":"m","params":{},"system":"a <b> & c","tools":[{"description":"adds","name":"calc","parameters":{"properties":{},"type":"object"}}]}`
	if string(payload) != want {
		t.Errorf("payload\n got %s\nwant %s", payload, want)
	}
	resp, err := inference.ParseResponse([]byte(`{"stop_reason": "end_turn", "content": [{"type": "text", "text": "42"}], "usage": {"input_tokens": 9, "output_tokens": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := serdeJSON(driverResponse(resp))
	if err != nil || string(raw) != `{"content":[{"text":"42","type":"text"}],"stop_reason":"end_turn"}` {
		t.Errorf("response %s, %v", raw, err)
	}
	var c tokens.Counter
	in, out, ok, err := turnTokens(&c, req, resp, "")
	wantIn, _ := c.Count(want)
	wantOut, _ := c.Count(string(raw))
	if err != nil || !ok || in != wantIn || out != wantOut || strings.Contains(string(payload), `\u003c`) {
		t.Errorf("turnTokens = %d, %d, %v, %v; want %d, %d", in, out, ok, err, wantIn, wantOut)
	}
}

// The session folder is counted as its placeholder, so two runs in folders
// of different lengths count the same.
func TestTurnTokensIgnoreTheSessionFolder(t *testing.T) {
	var c tokens.Counter
	resp, _ := inference.ParseResponse([]byte(`{"stop_reason":"end_turn","content":[{"type":"text","text":"saved in /tmp/a/sessions/ses_1/notes"}]}`))
	count := func(dir string) (int64, int64) {
		req := &inference.Request{Model: "m", Params: json.RawMessage("{}"), System: "Workdir: " + dir, Messages: []inference.Message{inference.UserMessage("look in " + dir + "/notes")}}
		resp.Content = json.RawMessage(strings.ReplaceAll(string(resp.Content), "/tmp/a/sessions/ses_1", dir))
		in, out, _, err := turnTokens(&c, req, resp, dir)
		if err != nil {
			t.Fatal(err)
		}
		return in, out
	}
	in1, out1 := count("/tmp/a/sessions/ses_1")
	in2, out2 := count("/var/folders/xy/T/TestSomething123/run/sessions/ses_0123456789abcdef")
	if in1 != in2 || out1 != out2 {
		t.Errorf("counts depend on the session folder: %d/%d vs %d/%d", in1, out1, in2, out2)
	}
}

// BenchmarkTurnTokens is one single-turn case's counting, the run's
// Counter warm: the request (a system prompt naming the session folder, a
// tool, the task) and the answer, each written as serde_json would.
func BenchmarkTurnTokens(b *testing.B) {
	var c tokens.Counter
	workdir := "/tmp/run/sessions/ses_0123456789abcdef0123456789abcdef"
	req := &inference.Request{MaxTokens: 8192, Model: "bench-model", Params: json.RawMessage("{}"),
		System: "[Capsule]\nName: bench\nWorkdir: " + workdir + "\n" +
			strings.Repeat("You are a careful assistant. Use the ok tool for every step, even an easy one. ", 12),
		Messages: []inference.Message{inference.UserMessage("Call ok once, then say done.")},
		Tools: []inference.Tool{{Name: "ok", Description: "Answers ok.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}}}
	resp := &inference.Response{StopReason: inference.StopEndTurn, Content: json.RawMessage(`[{"type":"text","text":"done"}]`)}
	if _, _, _, err := turnTokens(&c, req, resp, workdir); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := turnTokens(&c, req, resp, workdir); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCountsDoNotDependOnTheWorkdir: the same turn in session folders
// whose paths differ, one of them with the characters json.Marshal
// escapes and the payload does not, counts the same.
func TestCountsDoNotDependOnTheWorkdir(t *testing.T) {
	var c tokens.Counter
	count := func(dir string) (int64, int64) {
		req := &inference.Request{System: "Your folder is " + dir + ".", Messages: []inference.Message{
			inference.UserMessage("list " + dir + "/out"),
		}}
		resp := &inference.Response{StopReason: inference.StopEndTurn, Content: json.RawMessage(`[{"text":"` + dir + `/out is empty","type":"text"}]`)}
		in, out, ok, err := turnTokens(&c, req, resp, dir)
		if err != nil || !ok {
			t.Fatalf("turnTokens(%q) = %v, %v", dir, ok, err)
		}
		return in, out
	}
	in1, out1 := count("/tmp/plain/sessions/ses_1")
	for _, dir := range []string{"/tmp/a&b/sessions/ses_1", "/tmp/<x>/sessions/ses_2", "/tmp/R&D <draft>/ses_3"} {
		if in, out := count(dir); in != in1 || out != out1 {
			t.Errorf("workdir %q: counts %d / %d, want %d / %d (as in a folder without <, > or &)", dir, in, out, in1, out1)
		}
	}
}
