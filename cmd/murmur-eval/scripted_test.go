package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// scripted is one case of a generated dataset: the model makes calls, one
// tool call a turn, then answers "done".
type scripted struct {
	id       string
	expected map[string]any // nil: none
	calls    []toolUse
}

// toolUse is one tool call the model makes.
type toolUse struct {
	name  string
	input map[string]any
}

// bash is a call of the bash tool; "" is no call at all.
func bash(command string) []toolUse {
	if command == "" {
		return nil
	}
	return []toolUse{{"bash", map[string]any{"command": command}}}
}

// writeScripted writes dir/cases.jsonl and a recording per case in
// dir/recordings, for a run with --replay.
func writeScripted(t testing.TB, dir string, cases []scripted) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "recordings"), 0o755); err != nil {
		t.Fatal(err)
	}
	var dataset bytes.Buffer
	for _, c := range cases {
		line := map[string]any{"case_id": c.id, "task": "Run the tools."}
		if c.expected != nil {
			line["expected"] = c.expected
		}
		b, _ := json.Marshal(line)
		dataset.Write(append(b, '\n'))
		var rec bytes.Buffer
		for i, call := range c.calls {
			b, _ := json.Marshal(map[string]any{"stop_reason": "tool_call", "content": []any{
				map[string]any{"type": "tool_call", "id": fmt.Sprintf("c%d", i+1), "name": call.name, "input": call.input}}})
			rec.Write(append(b, '\n'))
		}
		rec.WriteString(`{"stop_reason":"end_turn","content":[{"type":"text","text":"done"}]}` + "\n")
		if err := os.WriteFile(filepath.Join(dir, "recordings", replay.FileName(c.id)), rec.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cases.jsonl"), dataset.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
