package inference

import (
	"encoding/json"
	"testing"
)

func TestParseResponse(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantErr   bool
		stop      string
		calls     int
		text      string
		wantInput string // first tool call's input
	}{
		{name: "end turn", in: `{"stop_reason":"end_turn","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, stop: "end_turn", text: "a\nb"},
		{name: "tool call", in: `{"stop_reason":"tool_call","content":[{"type":"tool_call","id":"1","name":"calc","input":{ "x" : 1 }}]}`, stop: "tool_call", calls: 1, wantInput: `{"x":1}`},
		{name: "tool call without input", in: `{"stop_reason":"tool_call","content":[{"type":"tool_call","id":"1","name":"calc"}]}`, stop: "tool_call", calls: 1, wantInput: `{}`},
		{name: "unknown block kept", in: `{"stop_reason":"end_turn","content":[{"type":"thinking","text":"hm","signature":"s"}]}`, stop: "end_turn"},
		{name: "error response", in: `{"stop_reason":"error","error":"overloaded"}`, stop: "error"},
		{name: "no content", in: `{"stop_reason":"end_turn"}`, stop: "end_turn"},
		{name: "not json", in: `stop`, wantErr: true},
		{name: "array", in: `[]`, wantErr: true},
		{name: "trailing data", in: `{"stop_reason":"end_turn"} {}`, wantErr: true},
		{name: "trailing brace", in: `{"stop_reason":"end_turn"}}`, wantErr: true},
		{name: "trailing bracket", in: `{"stop_reason":"end_turn"}]`, wantErr: true},
		{name: "trailing space", in: "{\"stop_reason\":\"end_turn\"} \r\n", stop: "end_turn"},
		{name: "missing stop reason", in: `{"content":[]}`, wantErr: true},
		{name: "stop reason not a string", in: `{"stop_reason":1}`, wantErr: true},
		{name: "content not an array", in: `{"stop_reason":"end_turn","content":{}}`, wantErr: true},
		{name: "block without type", in: `{"stop_reason":"end_turn","content":[{"text":"a"}]}`, wantErr: true},
		{name: "text not a string", in: `{"stop_reason":"end_turn","content":[{"type":"text","text":1}]}`, wantErr: true},
		{name: "tool call blank name", in: `{"stop_reason":"tool_call","content":[{"type":"tool_call","id":"1","name":" "}]}`, wantErr: true},
		{name: "tool call no id", in: `{"stop_reason":"tool_call","content":[{"type":"tool_call","name":"calc"}]}`, wantErr: true},
		{name: "tool call input array", in: `{"stop_reason":"tool_call","content":[{"type":"tool_call","id":"1","name":"calc","input":[1]}]}`, wantErr: true},
		{name: "negative usage", in: `{"stop_reason":"end_turn","usage":{"input_tokens":-1,"output_tokens":0}}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseResponse([]byte(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseResponse = %+v, want an error", r)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseResponse: %v", err)
			}
			if r.StopReason != tt.stop || len(r.ToolCalls()) != tt.calls || r.Text() != tt.text {
				t.Errorf("got stop %q, %d calls, text %q; want %q, %d, %q", r.StopReason, len(r.ToolCalls()), r.Text(), tt.stop, tt.calls, tt.text)
			}
			if tt.calls > 0 && string(r.ToolCalls()[0].Input) != tt.wantInput {
				t.Errorf("input = %s, want %s", r.ToolCalls()[0].Input, tt.wantInput)
			}
			if !json.Valid(r.Content) {
				t.Errorf("content %q is not valid JSON", r.Content)
			}
		})
	}
}

// FuzzParseResponse: model output is untrusted; the parser must never panic,
// and what it accepts must be usable by the loop.
func FuzzParseResponse(f *testing.F) {
	f.Add([]byte(`{"stop_reason":"tool_call","content":[{"type":"tool_call","id":"1","name":"calc","input":{"x":1}}],"usage":{"input_tokens":1,"output_tokens":2}}`))
	f.Add([]byte(`{"stop_reason":"end_turn","content":[{"type":"text","text":"hi"}]}`))
	f.Add([]byte(`{"stop_reason":"error","error":{"type":"overloaded"}}`))
	f.Add([]byte(`{"stop_reason":"","content":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResponse(data)
		if err != nil {
			return
		}
		if !json.Valid(r.Content) || !json.Valid(r.Raw) {
			t.Fatalf("accepted content or raw that is not JSON: %q / %q", r.Content, r.Raw)
		}
		for _, c := range r.ToolCalls() {
			if c.ID == "" || c.Name == "" || !json.Valid(c.Input) || c.Input[0] != '{' {
				t.Fatalf("accepted a bad tool call: %+v", c)
			}
		}
		_ = r.Text()
	})
}
