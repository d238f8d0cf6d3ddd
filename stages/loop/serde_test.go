package loop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// serdeCases are json.Marshal outputs of the shapes canonical must write
// exactly as serdeTree does, and of those it must hand back to it.
var serdeCases = []string{
	`{}`, `[]`, `"x"`, `12`, `-0.5e+10`, `true`, `null`, `[null,false,true,1E5,-0]`,
	`{"b":1,"a":{"d":[{"z":"1","y":2}],"c":{}}}`,
	`{"a":1,"b":2,"a":3}`, `{"a":{"x":1},"a":{"y":2},"b":0,"a":[]}`,
	`{"text":"\u003cb\u003e \u0026 done","type":"text"}`,
	`"quote \" backslash \\ \b\f\n\r\t \u0000\u001f\u000b \u2028\u2029 é 日本"`,
	`"\u0008 \u0009 \u000a \u000c \u000d"`,
	`"\u00e9 \u0041 \/ \u001F \ud83d\ude00 \ud800"`,
	`{"\u003ckey\u003e":1}`, `{"é":1,"e":2,"日":3,"Z":4}`,
	"\"raw \xff invalid\"", "\"raw \u2028 separator\"", "{\"k\xff\":1}",
	`{ "spaced" : 1 }`,
	`{"max_tokens":8192,"messages":[{"content":[{"text":"What is 6*7?\nThanks!","type":"text"}],"role":"user"}],"model":"m","params":{"temperature":0.2,"top_p":1},"system":"[Capsule]\nName: q","tools":[{"description":"d","input_schema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"name":"ok"}]}`,
	strings.Repeat(`[`, 600) + strings.Repeat(`]`, 600),
}

func TestCanonicalMatchesTree(t *testing.T) {
	for _, raw := range serdeCases {
		want, werr := serdeTree([]byte(raw))
		got, ok := canonical([]byte(raw))
		if !ok {
			if strings.HasPrefix(raw, `{"b":1`) || strings.HasPrefix(raw, `{"a":`) || strings.HasPrefix(raw, `{"text"`) {
				t.Errorf("canonical refused %s; it must re-sort keys, keep a repeated key's last value and unescape HTML itself", raw)
			}
			continue // serdeTree writes it
		}
		if werr != nil {
			t.Errorf("canonical(%.60s) = %s; serdeTree refuses it: %v", raw, got, werr)
			continue
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("canonical(%.60s) (-tree +canonical):\n%s", raw, diff)
		}
	}
}

// The shapes a turn has take the one pass: a request and a driver
// response, HTML characters, newlines and a tool's schema in them.
func TestCanonicalTakesTurns(t *testing.T) {
	req := &inference.Request{MaxTokens: 100, Model: "m<1>", Params: json.RawMessage(`{"b":1,"a":2}`),
		System:   "You are <careful> & exact.\nLine two.\t\u0001",
		Messages: []inference.Message{inference.UserMessage("Say \"done\" & stop")},
		Tools:    []inference.Tool{{Name: "ok", Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}}}
	resp := &inference.Response{StopReason: "end_turn", Content: json.RawMessage(`[{"type":"text","text":"done <b>"}]`)}
	for _, v := range []any{req, driverResponse(resp)} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := canonical(raw)
		if !ok {
			t.Fatalf("canonical refused %s", raw)
		}
		if want, _ := serdeTree(raw); string(got) != string(want) {
			t.Errorf("canonical(%s) = %s, serdeTree %s", raw, got, want)
		}
	}
}

// FuzzCanonical: on any JSON json.Marshal could write (a RawMessage
// compacted), canonical either refuses or writes what serdeTree writes.
func FuzzCanonical(f *testing.F) {
	for _, raw := range serdeCases {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, in string) {
		raw, err := json.Marshal(json.RawMessage(in))
		if err != nil {
			return
		}
		want, werr := serdeTree(raw)
		got, ok := canonical(raw)
		if !ok {
			return
		}
		if werr != nil || string(got) != string(want) {
			t.Fatalf("canonical(%s) = %s; serdeTree %s, %v", raw, got, want, werr)
		}
	})
}
