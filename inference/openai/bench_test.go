package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// turnRequest is BenchmarkTurn's request (inference/drivertest): a 1 KB
// system prompt, one tool, a two-message conversation; with turns > 0,
// that many more tool call / tool result exchanges, as a case's later
// turns send them.
func turnRequest(turns int) *inference.Request {
	req := &inference.Request{MaxTokens: 1024, Model: "gpt-4o", Params: json.RawMessage(`{}`), System: strings.Repeat("You are a careful agent. ", 40),
		Tools:    []inference.Tool{{Name: "bash", Description: "run a command", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}},
		Messages: []inference.Message{inference.UserMessage("list the files"), inference.AssistantMessage(json.RawMessage(`[{"type":"text","text":"Sure."}]`))}}
	for range turns {
		req.Messages = append(req.Messages,
			inference.AssistantMessage(json.RawMessage(`[{"type":"text","text":"Let me look."},{"type":"tool_call","id":"call_Qn2","name":"bash","input":{"command":"ls -la","n":1.5}}]`)),
			inference.ToolMessage("call_Qn2", false, strings.Repeat("-rw-r--r-- 1 root root 4096 file.txt\n", 20)))
	}
	return req
}

// BenchmarkEncode: BenchmarkTurn's request, and one ten turns later.
func BenchmarkEncode(b *testing.B) {
	a, err := New(inference.Config{Endpoint: "http://localhost", Model: "gpt-4o"})
	if err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct {
		name  string
		turns int
	}{{"turn1", 0}, {"turn10", 10}} {
		req := turnRequest(bb.turns)
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Encode(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sseBody is body's answer as server-sent chunks, as OpenAI streams a
// tool call: role, the call's id and name, its arguments in pieces, the
// finish reason.
const sseBody = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null},\"finish_reason\":null}]}\n\n" +
	"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_Qn2\",\"type\":\"function\",\"function\":{\"name\":\"bash\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n" +
	"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"command\\\"\"}}]},\"finish_reason\":null}]}\n\n" +
	"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":\\\"ls -la\\\"}\"}}]},\"finish_reason\":null}]}\n\n" +
	"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" +
	"data: [DONE]\n\n"

// BenchmarkDecode: BenchmarkTurn's answer (a tool call) as a JSON
// completion and as server-sent events, and a text answer.
func BenchmarkDecode(b *testing.B) {
	for _, bb := range []struct{ name, body string }{
		{"json", apitest.OpenAICompletion("tool_calls", "", 40, 18, apitest.OpenAIToolCall("call_Qn2", "bash", `{"command":"ls -la"}`))},
		{"text", apitest.OpenAICompletion("stop", "The directory holds three files: a.txt, b.txt and c.txt.", 40, 18)},
		{"sse", sseBody},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.body)))
			for b.Loop() {
				r, err := Decode([]byte(bb.body))
				if err != nil || r.DriverFailed {
					b.Fatal(err, r)
				}
			}
		})
	}
}
