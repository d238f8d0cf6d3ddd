package openai

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

func TestEncodeMapsMurmurToChatCompletions(t *testing.T) {
	call := json.RawMessage(`[{"type":"thinking","text":"hm","signature":"s"},{"type":"text","text":"Let me compute."},{"type":"tool_call","id":"call_1","name":"calc","input":{"z":"<&>","expression":"6*7","n":1.50}}]`)
	req := &inference.Request{
		MaxTokens: 256,
		Model:     "gpt-4o",
		Params:    json.RawMessage(`{}`),
		System:    "be brief",
		Tools:     []inference.Tool{{Name: "calc", Description: "calculator", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}, {Name: "now"}},
		Messages: []inference.Message{
			inference.UserMessage("What is 6*7?"),
			inference.AssistantMessage(call),
			inference.ToolMessage("call_1", false, "42"),
			inference.AssistantMessage(json.RawMessage(`[{"type":"text","text":"It is 42."}]`)),
		},
	}
	a, err := New(inference.Config{Endpoint: "https://api.openai.com/v1", APIKey: "sk-test", DriverConfig: json.RawMessage(`{"api":"openai","max_tokens_field":"max_completion_tokens","seed":7,"headers":{"OpenAI-Organization":"org-1"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	body, err := a.Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"max_completion_tokens":256,"messages":[` +
		`{"role":"system","content":"be brief"},` +
		`{"role":"user","content":"What is 6*7?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"calc","arguments":"{\"expression\":\"6*7\",\"n\":1.5,\"z\":\"<&>\"}"}}]},` +
		`{"role":"tool","content":"42","tool_call_id":"call_1"},` +
		`{"role":"assistant","content":"It is 42."}],` +
		`"model":"gpt-4o","seed":7,` +
		`"tools":[{"type":"function","function":{"name":"calc","description":"calculator","parameters":{"type":"object","properties":{}}}},` +
		`{"type":"function","function":{"name":"now","parameters":null}}]}`
	if diff := gocmp.Diff(want, string(body)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
	h := http.Header{}
	a.Header(h)
	if h.Get("Authorization") != "Bearer sk-test" || h.Get("OpenAI-Organization") != "org-1" {
		t.Errorf("headers = %v", h)
	}
	if a.URL() != "https://api.openai.com/v1/chat/completions" {
		t.Errorf("URL = %s", a.URL())
	}
}

func TestEncodeImagesAndNoSystem(t *testing.T) {
	a, _ := New(inference.Config{Endpoint: "http://localhost:11434", Model: "llama3", MaxTokens: 64})
	img := inference.Message{Role: "user", Content: json.RawMessage(`[{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]`)}
	body, err := a.Encode(&inference.Request{Messages: []inference.Message{img}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"max_completion_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"}}]}],"model":"llama3"}`
	if string(body) != want {
		t.Errorf("body = %s\nwant   %s", body, want)
	}
}

// TestURL: the endpoint gets /chat/completions appended, as murmur's
// driver appends it (its trailing slash dropped, its query kept), or
// driver.config.path as given.
func TestURL(t *testing.T) {
	for _, tt := range []struct{ endpoint, cfg, want string }{
		{"https://api.openai.com/v1", ``, "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/v1/", ``, "https://api.openai.com/v1/chat/completions"},
		{"http://localhost:11434", ``, "http://localhost:11434/chat/completions"},
		{"http://localhost:8000/openai/v1?key=1", ``, "http://localhost:8000/openai/v1/chat/completions?key=1"},
		{"https://x.openai.azure.com", `{"path":"/openai/deployments/d/chat/completions"}`, "https://x.openai.azure.com/openai/deployments/d/chat/completions"},
		{"https://gw.example/v1", `{"path":"v1/chat"}`, "https://gw.example/v1/v1/chat"},
	} {
		a, err := New(inference.Config{Endpoint: tt.endpoint, DriverConfig: json.RawMessage(cmp.Or(tt.cfg, "{}"))})
		if err != nil {
			t.Fatal(err)
		}
		if a.URL() != tt.want {
			t.Errorf("URL(%s, %s) = %s, want %s", tt.endpoint, tt.cfg, a.URL(), tt.want)
		}
	}
	a, _ := New(inference.Config{Endpoint: "http://h", MaxTokens: 9, DriverConfig: json.RawMessage(`{"max_tokens_field":"max_tokens"}`)})
	if body, _ := a.Encode(&inference.Request{}); !strings.HasPrefix(string(body), `{"max_tokens":9,`) {
		t.Errorf("max_tokens_field max_tokens: %s", body)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []string{`{"max_tokens_field":"n"}`, `{"headers":[1]}`, `{"seed":"x"}`} {
		if _, err := New(inference.Config{Endpoint: "https://x.example", DriverConfig: json.RawMessage(cfg)}); !errcode.Is(err, errcode.ProviderDriver) {
			t.Errorf("New(%s) = %v, want E-EVL-017", cfg, err)
		}
	}
}

// TestDecode: each body gives what murmur's murmur-driver-openai gave on
// it, checked by hand (docs/providers.md): its canonical response (Raw:
// the driver's data, plus usage when the server sent it), its failure
// text (the session ends failed), or the loop's refusal of its data
// (E-RUN-007).
func TestDecode(t *testing.T) {
	for _, tt := range decodeTests() {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode([]byte(tt.body))
			switch {
			case tt.code != "":
				if !errcode.Is(err, tt.code) {
					t.Fatalf("Decode = %+v, %v; want %s", r, err, tt.code)
				}
			case err != nil:
				t.Fatal(err)
			case tt.failed != "":
				var data struct{ Error, StopReason string }
				_ = json.Unmarshal([]byte(r.Error), &data)
				if !r.DriverFailed || !strings.HasPrefix(data.Error, tt.failed) {
					t.Errorf("Decode = failed %v %q, want failed with %q", r.DriverFailed, r.Error, tt.failed)
				}
			case r.DriverFailed || string(r.Raw) != tt.want:
				t.Errorf("Decode = failed %v\n%s\nwant %s", r.DriverFailed, r.Raw, tt.want)
			}
		})
	}
}

// decodeTest is one body of TestDecode and what Decode makes of it.
type decodeTest struct {
	name, body string
	want       string // Raw of a passed turn
	failed     string // the driver's failure message
	code       string // the loop refuses the driver's data
}

// decodeTests are TestDecode's bodies, also FuzzDecodeMatchesRoundTrip's
// seeds.
func decodeTests() []decodeTest {
	call := func(args string) string {
		return `{"choices":[{"message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":` + args + `}}]},"finish_reason":"tool_calls"}]}`
	}
	text := func(content, finish string) string {
		return `{"choices":[{"message":{"content":` + content + `},"finish_reason":` + finish + `}]}`
	}
	bash := apitest.OpenAIToolCall("call_a", "bash", `{"command": "ls"}`)
	return []decodeTest{
		{name: "tool calls", body: apitest.OpenAICompletion("tool_calls", "", 50, 12, bash, apitest.OpenAIToolCall("call_b", "calc", `{}`)),
			want: `{"content":[{"id":"call_a","input":{"command":"ls"},"name":"bash","type":"tool_call"},{"id":"call_b","input":{},"name":"calc","type":"tool_call"}],"stop_reason":"tool_call","usage":{"input_tokens":50,"output_tokens":12}}`},
		{name: "stop", body: apitest.OpenAICompletion("stop", "42 <&>", 60, 2), want: `{"content":[{"text":"42 <&>","type":"text"}],"stop_reason":"end_turn","usage":{"input_tokens":60,"output_tokens":2}}`},
		{name: "length", body: apitest.OpenAICompletion("length", "cut", 1, 9), want: `{"content":[{"text":"cut","type":"text"}],"stop_reason":"max_tokens","usage":{"input_tokens":1,"output_tokens":9}}`},
		{name: "text beside tool calls is dropped", body: apitest.OpenAICompletion("tool_calls", "Let me look.", 1, 1, bash),
			want: `{"content":[{"id":"call_a","input":{"command":"ls"},"name":"bash","type":"tool_call"}],"stop_reason":"tool_call","usage":{"input_tokens":1,"output_tokens":1}}`},
		{name: "tool calls under stop end the turn", body: apitest.OpenAICompletion("stop", "", 1, 1, bash),
			want: `{"content":[{"id":"call_a","input":{"command":"ls"},"name":"bash","type":"tool_call"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`},
		{name: "tool calls under no finish_reason", body: `{"choices":[{"message":{"content":"hi","tool_calls":[{"id":"c","function":{"name":"bash","arguments":"{}"}}]},"finish_reason":null}]}`,
			want: `{"content":[{"id":"c","input":{},"name":"bash","type":"tool_call"}],"stop_reason":"end_turn"}`},
		{name: "refusal dropped", body: text(`null,"refusal":"I can't help with that."`, `"stop"`), want: `{"content":[],"stop_reason":"end_turn"}`},
		{name: "empty content kept", body: text(`""`, `"stop"`), want: `{"content":[{"text":"","type":"text"}],"stop_reason":"end_turn"}`},
		{name: "parts: one block each", body: text(`[{"type":"text","text":"a"},{"type":"text","text":""},{"type":"refusal","refusal":"no"},{"type":"text"},{"text":"x"},{"type":"text","text":5},"s",{"type":"text","text":"b"}]`, `"stop"`),
			want: `{"content":[{"text":"a","type":"text"},{"text":"","type":"text"},{"text":"b","type":"text"}],"stop_reason":"end_turn"}`},
		{name: "think tags are text", body: text(`"<think>hm</think>Hello"`, `"stop"`), want: `{"content":[{"text":"<think>hm</think>Hello","type":"text"}],"stop_reason":"end_turn"}`},
		{name: "content of another type", body: text(`5`, `"stop"`), want: `{"content":[],"stop_reason":"end_turn"}`},
		{name: "finish_reason of another type", body: text(`"a"`, `5`), want: `{"content":[{"text":"a","type":"text"}],"stop_reason":"end_turn"}`},
		{name: "no message", body: `{"choices":[{"finish_reason":"stop"}]}`, want: `{"content":[],"stop_reason":"end_turn"}`},
		{name: "choice not an object", body: `{"choices":[5]}`, want: `{"content":[],"stop_reason":"end_turn"}`},
		{name: "tool_calls not a list", body: `{"choices":[{"message":{"content":"hi","tool_calls":{}},"finish_reason":"stop"}]}`, want: `{"content":[{"text":"hi","type":"text"}],"stop_reason":"end_turn"}`},
		{name: "arguments missing or not a string", body: `{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"n"}},{"id":"b","function":{"name":"n","arguments":null}},{"id":"c","function":{"name":"n","arguments":{"x":1}}}]},"finish_reason":"tool_calls"}]}`,
			want: `{"content":[{"id":"a","input":{},"name":"n","type":"tool_call"},{"id":"b","input":{},"name":"n","type":"tool_call"},{"id":"c","input":{},"name":"n","type":"tool_call"}],"stop_reason":"tool_call"}`},
		{name: "arguments: keys sorted, numbers as the driver prints them", body: call(`"  {\"n\":{\"b\":1,\"a\":2},\"f\":1.50,\"e\":1e2,\"big\":12345678901234567890123,\"tiny\":1e-6,\"small\":1.5e-5,\"i\":-9223372036854775809,\"u\":18446744073709551615,\"z\":-0.0,\"s\":\"<&>\\u2028\"}  "`),
			want: "{\"content\":[{\"id\":\"c\",\"input\":{\"big\":1.2345678901234568e+22,\"e\":100.0,\"f\":1.5,\"i\":-9.223372036854776e+18,\"n\":{\"a\":2,\"b\":1},\"s\":\"<&>\u2028\",\"small\":0.000015,\"tiny\":1e-6,\"u\":18446744073709551615,\"z\":-0.0},\"name\":\"bash\",\"type\":\"tool_call\"}],\"stop_reason\":\"tool_call\"}"},
		{name: "server-sent events", body: "data: {\"choices\":[{\"delta\":{\"content\":\"He\"}}]}\n\nevent: x\ndata:{\"choices\":[{\"delta\":{\"content\":\"ignored\"}}]}\ndata: {\"choices\":[{\"delta\":{\"content\":\"llo\"},\"finish_reason\":\"length\"}]}\r\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":null}]}\ndata: [DONE]\n",
			want: `{"content":[{"text":"Hello","type":"text"}],"stop_reason":"max_tokens"}`},
		{name: "server-sent tool calls by index", body: "data: {\"choices\":[{\"delta\":{\"content\":\"hm\",\"tool_calls\":[{\"index\":1,\"id\":\"c1\",\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
			want: `{"content":[{"id":"c1","input":{"a":1},"name":"bash","type":"tool_call"}],"stop_reason":"tool_call"}`},
		{name: "html is an empty stream", body: "<html>hi</html>", want: `{"content":[],"stop_reason":"end_turn"}`},
		{name: "usage not valid is left out", body: `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":-1}}`, want: `{"content":[{"text":"a","type":"text"}],"stop_reason":"end_turn"}`},
		{name: "usage at the 64-bit maximum", body: `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9223372036854775807,"completion_tokens":9223372036854775807}}`,
			want: `{"content":[{"text":"a","type":"text"}],"stop_reason":"end_turn","usage":{"input_tokens":9223372036854775807,"output_tokens":9223372036854775807}}`},

		{name: "content_filter", body: apitest.OpenAICompletion("content_filter", "", 1, 0), failed: "OpenAI response blocked by content_filter"},
		{name: "function_call", body: text(`"x"`, `"function_call"`), failed: "driver: unsupported OpenAI finish_reason 'function_call'"},
		{name: "streamed content_filter", body: "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"content_filter\"}]}\n", failed: "OpenAI response blocked by content_filter"},
		{name: "no choices", body: `{"choices":[]}`, failed: "driver: OpenAI response missing choices[0]"},
		{name: "error with 200", body: apitest.OpenAIError("server_error", "x", "boom"), failed: "driver: OpenAI response missing choices[0]"},
		{name: "malformed JSON", body: `{"choices":[{"message":{"content":"Hel`, failed: "driver: failed to parse OpenAI response JSON: "},
		{name: "trailing characters", body: text(`"a"`, `"stop"`) + " x", failed: "driver: failed to parse OpenAI response JSON: "},
		{name: "not UTF-8", body: "{\"choices\":\xff}", failed: "driver: response body is not UTF-8: invalid utf-8 sequence of 1 bytes from index 11"},
		{name: "arguments not JSON", body: call(`"{cmd"`), failed: "driver: failed to parse OpenAI tool call arguments JSON: "},
		{name: "arguments empty", body: call(`""`), failed: "driver: failed to parse OpenAI tool call arguments JSON: EOF while parsing a value"},
		{name: "arguments with trailing characters", body: call(`"{} x"`), failed: "driver: failed to parse OpenAI tool call arguments JSON: trailing characters"},
		{name: "arguments past the f64 range", body: call(`"{\"x\":1e400}"`), failed: "driver: failed to parse OpenAI tool call arguments JSON: number out of range"},
		{name: "streamed arguments missing", body: "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"bash\"}}]},\"finish_reason\":\"tool_calls\"}]}\n", failed: "driver: failed to parse OpenAI tool call arguments JSON: EOF"},

		{name: "arguments not an object", body: call(`"[1]"`), code: errcode.RunAgentLoop},
		{name: "tool call without id", body: `{"choices":[{"message":{"tool_calls":[{"function":{"name":"bash","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, code: errcode.RunAgentLoop},
		{name: "tool call without name", body: `{"choices":[{"message":{"tool_calls":[{"id":"c","function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, code: errcode.RunAgentLoop},
	}
}

func TestFailure(t *testing.T) {
	a, _ := New(inference.Config{Endpoint: "https://x.example"})
	tests := []struct {
		body  string
		msg   string
		final bool
		text  string
	}{
		{apitest.OpenAIError("requests", "rate_limit_exceeded", "Rate limit reached for gpt-4o"), "rate_limit_exceeded: Rate limit reached for gpt-4o", false, ""},
		{apitest.OpenAIError("insufficient_quota", "insufficient_quota", "You exceeded your current quota"), "insufficient_quota: You exceeded your current quota", true, ""},
		{`{"error":"model 'llama9' not found"}`, "model 'llama9' not found", false, ""},
		{`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":null}}`, "invalid_request_error: Incorrect API key provided", false, ""},
		{"upstream connect error", "upstream connect error", false, ""},
		{"bad \xe2\x82", "bad ?", false, "driver: error response body is not UTF-8: incomplete utf-8 byte sequence from index 4"},
	}
	for _, tt := range tests {
		got := a.Failure(429, []byte(tt.body))
		text := cmp.Or(tt.text, "HTTP 429: "+tt.body)
		if got.Message != tt.msg || got.Final != tt.final || got.Text != text {
			t.Errorf("Failure(%s) = %+v, want %q final %v text %q", tt.body, got, tt.msg, tt.final, text)
		}
	}
}

// FuzzDecode: the body is the provider's, untrusted.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(apitest.OpenAICompletion("tool_calls", "x", 1, 2, apitest.OpenAIToolCall("c", "n", `{"a":1}`))))
	f.Add([]byte(apitest.OpenAICompletion("stop", "hi", 1, 2)))
	f.Add([]byte(`{"choices":[{"message":{"content":[{"type":"text","text":"a"}],"tool_calls":[{"function":{"name":"n","arguments":{"b":2}}}]},"finish_reason":null}]}`))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\",\"tool_calls\":[{\"index\":2,\"id\":\"c\",\"function\":{\"name\":\"n\",\"arguments\":\"{\\\"x\\\":1.5e-9}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Decode(body)
		if err != nil {
			return
		}
		again, err := inference.ParseResponse(r.Raw)
		if err != nil || !gocmp.Equal(again.Blocks, r.Blocks) || again.StopReason != r.StopReason {
			t.Fatalf("canonical form does not round-trip (%v): %s", err, r.Raw)
		}
		if r.DriverFailed && !strings.Contains(string(r.Raw), "murmur_eval_driver_failed") {
			t.Fatalf("failed turn without its recording mark: %s", r.Raw)
		}
		if r.StopReason == inference.StopError && r.Error == "" {
			t.Fatal("error response without a message")
		}
	})
}

// FuzzFailure: error bodies are untrusted too.
func FuzzFailure(f *testing.F) {
	f.Add([]byte(apitest.OpenAIError("a", "b", "c")))
	f.Add([]byte(`{"error":"x"}`))
	f.Add([]byte{0xff, 0xfe})
	a, _ := New(inference.Config{Endpoint: "https://x.example"})
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = a.Failure(500, body)
	})
}
