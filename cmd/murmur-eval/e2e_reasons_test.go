package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileAnswer is a final answer with what a reason must not pass on
// as it is: a newline, a terminal escape, a bidi override; and long.
const hostileAnswer = "Echo: line one\nline two \x1b[31mred\u202eevil.exe " +
	"and then a long tail that goes on and on so that the quote must be cut somewhere before the end of it, far past 120 runes."

// answeringCase writes into the quickstart copy qs a case with id id and
// expected, whose recorded model answers answer in one turn (the
// direct-answer case's recording, its text replaced).
func answeringCase(t *testing.T, qs, recs, id, answer string, expected any) string {
	t.Helper()
	raw, err := os.ReadFile(recordingPath(filepath.Join(qs, "recordings"), "direct-answer"))
	if err != nil {
		t.Fatal(err)
	}
	var turn map[string]any
	if err := json.Unmarshal(raw, &turn); err != nil {
		t.Fatal(err)
	}
	turn["content"] = []any{map[string]any{"type": "text", "text": answer}}
	rec, _ := json.Marshal(turn)
	if err := os.WriteFile(recordingPath(recs, id), append(rec, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"case_id": id, "task": "Say something.", "expected": expected})
	return string(line)
}

// TestFailureReasonsQuoteTheAnswer: a failed result_contains says what the
// answer was, escaped (one line: \n, \x1b, \u202e) and cut with its
// length, in scores.parquet, the terminal's failed block, summary.md and
// junit.xml; result_equals and result_matches quote it alike.
func TestFailureReasonsQuoteTheAnswer(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	recs := filepath.Join(qs, "recordings-reasons")
	if err := os.MkdirAll(recs, 0o755); err != nil {
		t.Fatal(err)
	}
	dataset := filepath.Join(qs, "cases-reasons.jsonl")
	lines := []string{
		answeringCase(t, qs, recs, "contains", hostileAnswer, map[string]any{"result_contains": "Echoed"}),
		answeringCase(t, qs, recs, "equals", "Hello there", map[string]any{"result_equals": "Echoed"}),
		answeringCase(t, qs, recs, "matches", "Hello there", map[string]any{"result_matches": "^Echoed"}),
	}
	if err := os.WriteFile(dataset, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, r := newFixture(t, qs).withData(dataset, recs).run()
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	quoted := `"Echo: line one\nline two \x1b[31mred\u202eevil.exe and then a long tail that goes on and on so that the quote must be cut somewh…" (164 runes)`
	want := map[string]string{
		"contains": `result lacks "Echoed" (0 of 1 found) in ` + quoted,
		"equals":   `result "Hello there", want "Echoed"`,
		"matches":  `result "Hello there" does not match /^Echoed/`,
	}
	got := map[string]string{}
	for _, s := range readParquet(t, filepath.Join(out, "scores.parquet")).Rows {
		if s["result"] == "fail" && strings.HasPrefix(s["scorer"].(string), "result_") {
			got[s["case_id"].(string)] = s["reason"].(string)
		}
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("case %q: scores.parquet reason\n%s\nwant\n%s", id, got[id], w)
		}
	}
	// The terminal's failed block shortens the reasons, and shows the
	// start of the answer.
	if w := `contains  result_contains: result lacks "Echoed" (0 of 1 found) in "Echo: line one\nline two`; !strings.Contains(r.stdout, w) {
		t.Errorf("terminal summary lacks %q:\n%s", w, r.stdout)
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if w := `in "Echo: line one\\nline two \\x1b\[31mred\\u202eevil.exe`; !strings.Contains(string(md), w) {
		t.Errorf("summary.md lacks %q:\n%s", w, md)
	}
	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if w := `in &#34;Echo: line one\nline two \x1b[31mred\u202eevil.exe`; !strings.Contains(string(junit), w) {
		t.Errorf("junit.xml lacks %q:\n%s", w, junit)
	}
	for name, b := range map[string][]byte{"summary.md": md, "junit.xml": junit, "stdout": []byte(r.stdout)} {
		if strings.ContainsAny(string(b), "\x1b\u202e") {
			t.Errorf("%s holds the answer's escape or bidi override as it is", name)
		}
	}
}
