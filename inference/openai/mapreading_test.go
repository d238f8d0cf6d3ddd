package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// FuzzDecodeMatchesMapReading: the scanning reader (lenient.go) reads
// every body as the reading it replaced did, which decoded each object
// into a map[string]json.RawMessage and each array into a
// []json.RawMessage (kept below as mapDecode, from commit ac9ab73): the
// same content, stop reason, failure text and usage.
func FuzzDecodeMatchesMapReading(f *testing.F) {
	f.Add([]byte(apitest.OpenAICompletion("tool_calls", "x", 1, 2, apitest.OpenAIToolCall("c", "n", `{"a":1}`))))
	f.Add([]byte(apitest.OpenAICompletion("stop", "hi \u00e9 \"q\"", 1, 2)))
	f.Add([]byte(`{"choices":[{"message":{"content":[{"type":"text","text":"a"}],"tool_calls":[{"function":{"name":"n","arguments":{"b":2}}}]},"finish_reason":null}]}`))
	f.Add([]byte(` {"ch\u006fices" : [ {"message":{"content":"a","content":5},"finish_reason":"stop","finish_reason":"length"} ] , "usage" : {"prompt_tokens":1,"Completion_Tokens":2}} `))
	f.Add([]byte(`{"choices":[{"message":{"content":"\ud800 \u2028","tool_calls":[{"id":"\"","function":{"name":"x","arguments":"[1,{\"a\":[]}]"}}]}}],"usage":null}`))
	f.Add([]byte(`{"choices":[[],{}],"usage":{"prompt_tokens":1.5}} x`))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\",\"tool_calls\":[{\"index\":2,\"id\":\"c\",\"function\":{\"name\":\"n\",\"arguments\":\"{\\\"x\\\":1.5e-9}\"}}]},\"finish_reason\":\"tool_calls\"}]}\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1},{\"index\":1e0},{\"index\":\"2\"},{\"index\":18446744073709551616}]}}]}\n"))
	f.Add([]byte(sseBody))
	f.Fuzz(func(t *testing.T, body []byte) {
		content, stop, failed, u := decode(body)
		wantContent, wantStop, wantFailed, wantU := mapDecode(body)
		got := []any{content, stop, failed, u}
		want := []any{wantContent, wantStop, wantFailed, wantU}
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Fatalf("decode(%q) differs from the map reading (-want +got):\n%s", body, diff)
		}
	})
}

func mapDecode(body []byte) (content []any, stop, failed string, u *inference.Usage) {
	if msg := httpapi.UTF8Error(body); msg != "" {
		return nil, "", "driver: response body is not UTF-8: " + msg, nil
	}
	var texts []string
	var calls []answerCall
	var finish string
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		texts, calls, finish = mapAssembleStream(body)
	} else {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(body, &top); err != nil {
			return nil, "", "driver: failed to parse OpenAI response JSON: " + err.Error(), nil
		}
		var err error
		if texts, calls, finish, err = mapCompletion(top); err != nil {
			return nil, "", err.Error(), nil
		}
		u = usage(top["usage"])
	}
	switch finish {
	case "", "stop":
		stop = inference.StopEndTurn
	case "tool_calls":
		stop = inference.StopToolCall
	case "length":
		stop = inference.StopMaxTokens
	case "content_filter":
		return nil, "", "OpenAI response blocked by content_filter", nil
	default:
		return nil, "", fmt.Sprintf("driver: unsupported OpenAI finish_reason '%s'", finish), nil
	}
	content = []any{}
	for _, tc := range calls {
		input, err := arguments(tc.arguments)
		if err != nil {
			return nil, "", "driver: failed to parse OpenAI tool call arguments JSON: " + err.Error(), nil
		}
		content = append(content, map[string]any{"id": tc.id, "input": input, "name": tc.name, "type": "tool_call"})
	}
	if len(calls) > 0 {
		return content, stop, "", u
	}
	for _, t := range texts {
		content = append(content, map[string]any{"text": t, "type": "text"})
	}
	return content, stop, "", u
}

// completion reads a JSON chat completion's first choice: its text (a
// string content, even "", or each text part), its tool calls (arguments
// that are not a string count as "{}") and its finish_reason.
func mapCompletion(top map[string]json.RawMessage) (texts []string, calls []answerCall, finish string, err error) {
	choices := mapArray(top["choices"])
	if len(choices) == 0 {
		return nil, nil, "", fmt.Errorf("driver: OpenAI response missing choices[0]")
	}
	choice := mapObject(choices[0])
	msg := mapObject(choice["message"])
	content := msg["content"]
	if s, ok := mapStr(content); ok {
		texts = []string{s}
	}
	for _, p := range mapArray(content) {
		if t, _ := mapStr(mapField(p, "type")); t == "text" {
			if s, ok := mapStr(mapField(p, "text")); ok {
				texts = append(texts, s)
			}
		}
	}
	for _, raw := range mapArray(msg["tool_calls"]) {
		fn := mapField(raw, "function")
		tc := answerCall{arguments: "{}"}
		tc.id, _ = mapStr(mapField(raw, "id"))
		tc.name, _ = mapStr(mapField(fn, "name"))
		if s, ok := mapStr(mapField(fn, "arguments")); ok {
			tc.arguments = s
		}
		calls = append(calls, tc)
	}
	finish, _ = mapStr(choice["finish_reason"])
	return texts, calls, finish, nil
}

// field is raw's member key when raw is an object, else nil.
func mapField(raw json.RawMessage, key string) json.RawMessage {
	return mapObject(raw)[key]
}

// object is raw's members when raw is an object, else nil (keys matched
// exactly, the last of a repeated key kept, as serde_json reads them).
func mapObject(raw json.RawMessage) map[string]json.RawMessage {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj
}

// array is raw's elements when raw is an array, else nil.
func mapArray(raw json.RawMessage) []json.RawMessage {
	var a []json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return a
}

// str is raw's value when raw is a string.
func mapStr(raw json.RawMessage) (string, bool) {
	var s string
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func mapAssembleStream(body []byte) ([]string, []answerCall, string) {
	var text strings.Builder
	calls := map[uint64]*answerCall{}
	var finish string
	for line := range strings.SplitSeq(string(body), "\n") {
		payload, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		payload = strings.TrimSpace(payload)
		if !ok || payload == "[DONE]" || !json.Valid([]byte(payload)) {
			continue
		}
		choices := mapArray(mapField(json.RawMessage(payload), "choices"))
		if len(choices) == 0 {
			continue
		}
		delta := mapField(choices[0], "delta")
		if s, ok := mapStr(mapField(delta, "content")); ok {
			text.WriteString(s)
		}
		for _, d := range mapArray(mapField(delta, "tool_calls")) {
			var i uint64
			_ = json.Unmarshal(mapField(d, "index"), &i)
			tc := calls[i]
			if tc == nil {
				tc = &answerCall{}
				calls[i] = tc
			}
			fn := mapField(d, "function")
			if s, _ := mapStr(mapField(d, "id")); s != "" {
				tc.id = s
			}
			if s, _ := mapStr(mapField(fn, "name")); s != "" {
				tc.name = s
			}
			if s, ok := mapStr(mapField(fn, "arguments")); ok {
				tc.arguments += s
			}
		}
		if s, ok := mapStr(mapField(choices[0], "finish_reason")); ok {
			finish = s
		}
	}
	var texts []string
	if text.Len() > 0 {
		texts = []string{text.String()}
	}
	var out []answerCall
	for _, i := range slices.Sorted(maps.Keys(calls)) {
		out = append(out, *calls[i])
	}
	return texts, out, finish
}

// decode is the driver's reading of a 2xx body (read, then the content
// blocks roundTrip encodes), in the shape the map reading returns.
func decode(body []byte) (content []any, stop, failed string, u *inference.Usage) {
	a, failed := read(body)
	if failed == "" {
		content, failed = a.content()
	}
	if failed != "" {
		return nil, "", failed, nil
	}
	return content, a.stop, "", a.usage
}
