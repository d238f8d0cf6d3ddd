package openai

import (
	"encoding/json"
	"math"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

func TestEncodeMapsMurmurToChatCompletions(t *testing.T) {
	call := json.RawMessage(`[{"type":"thinking","text":"hm","signature":"s"},{"type":"tool_call","id":"call_1","name":"calc","input":{"expression":"6*7"}}]`)
	req := &inference.Request{
		MaxTokens: 256,
		Model:     "gpt-4o",
		Params:    json.RawMessage(`{}`),
		System:    "be brief",
		Tools:     []inference.Tool{{Name: "calc", Description: "calculator", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
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
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"calc","arguments":"{\"expression\":\"6*7\"}"}}]},` +
		`{"role":"tool","content":"42","tool_call_id":"call_1"},` +
		`{"role":"assistant","content":"It is 42."}],` +
		`"model":"gpt-4o","seed":7,` +
		`"tools":[{"type":"function","function":{"name":"calc","description":"calculator","parameters":{"type":"object","properties":{}}}}]}`
	if diff := cmp.Diff(want, string(body)); diff != "" {
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
	want := `{"max_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"}}]}],"model":"llama3"}`
	if string(body) != want {
		t.Errorf("body = %s\nwant   %s", body, want)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []string{`{"max_tokens_field":"n"}`, `{"headers":[1]}`, `{"seed":"x"}`} {
		if _, err := New(inference.Config{Endpoint: "https://x.example", DriverConfig: json.RawMessage(cfg)}); !errcode.Is(err, errcode.ProviderDriver) {
			t.Errorf("New(%s) = %v, want E-EVL-017", cfg, err)
		}
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, body string
		stop, text string
		calls      []string
		usage      *inference.Usage
		errMsg     string
		wantErr    bool
	}{
		{name: "tool calls", body: apitest.OpenAICompletion("tool_calls", "", 50, 12, apitest.OpenAIToolCall("call_a", "calc", `{"expression": "6*7"}`), apitest.OpenAIToolCall("call_b", "calc", ``)),
			stop: "tool_call", calls: []string{`call_a calc{"expression":"6*7"}`, `call_b calc{}`}, usage: &inference.Usage{InputTokens: 50, OutputTokens: 12}},
		{name: "stop", body: apitest.OpenAICompletion("stop", "42", 60, 2), stop: "end_turn", text: "42", usage: &inference.Usage{InputTokens: 60, OutputTokens: 2}},
		{name: "length", body: apitest.OpenAICompletion("length", "cut", 1, 9), stop: "max_tokens", text: "cut", usage: &inference.Usage{InputTokens: 1, OutputTokens: 9}},
		{name: "content filter", body: apitest.OpenAICompletion("content_filter", "", 1, 0), stop: "error", errMsg: "openai finish_reason content_filter is not supported", usage: &inference.Usage{InputTokens: 1}},
		{name: "stop with tool calls and no ids (ollama)", body: `{"choices":[{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"calc","arguments":{"x":1}}}]},"finish_reason":"stop"}]}`,
			stop: "tool_call", calls: []string{`call_0 calc{"x":1}`}},
		{name: "no usage, parts content", body: `{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"stop"}]}`, stop: "end_turn", text: "a\nb"},
		{name: "refusal", body: `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`, stop: "end_turn", text: "I can't help with that."},
		{name: "bad arguments are the model's failure", body: apitest.OpenAICompletion("tool_calls", "", 5, 5, apitest.OpenAIToolCall("c", "calc", `{"expression":`)),
			stop: "error", errMsg: `tool call "calc": arguments are not a JSON object`, usage: &inference.Usage{InputTokens: 5, OutputTokens: 5}},
		{name: "no choices", body: `{"choices":[]}`, wantErr: true},
		{name: "error with 200", body: apitest.OpenAIError("server_error", "x", "boom"), wantErr: true},
		{name: "not json", body: `data: {}`, wantErr: true},
		{name: "tool call without name", body: `{"choices":[{"message":{"tool_calls":[{"id":"c","function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, wantErr: true},
		{name: "negative usage", body: `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":-1}}`, wantErr: true},
		{name: "usage at the 64-bit maximum", body: `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9223372036854775807,"completion_tokens":9223372036854775807}}`,
			stop: "end_turn", text: "a", usage: &inference.Usage{InputTokens: math.MaxInt64, OutputTokens: math.MaxInt64}},
		{name: "usage past int64 (MaxUint64) is refused", body: `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":18446744073709551615}}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode([]byte(tt.body))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Decode = %+v, want an error", r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			for _, c := range r.ToolCalls() {
				calls = append(calls, c.ID+" "+c.Name+string(c.Input))
			}
			if r.StopReason != tt.stop || r.Text() != tt.text || r.Error != tt.errMsg || !cmp.Equal(calls, tt.calls) || !cmp.Equal(r.Usage, tt.usage) {
				t.Errorf("Decode = stop %q text %q err %q calls %v usage %+v; want %q %q %q %v %+v", r.StopReason, r.Text(), r.Error, calls, r.Usage, tt.stop, tt.text, tt.errMsg, tt.calls, tt.usage)
			}
		})
	}
}

func TestFailure(t *testing.T) {
	a, _ := New(inference.Config{Endpoint: "https://x.example"})
	tests := []struct {
		body  string
		msg   string
		final bool
	}{
		{apitest.OpenAIError("requests", "rate_limit_exceeded", "Rate limit reached for gpt-4o"), "rate_limit_exceeded: Rate limit reached for gpt-4o", false},
		{apitest.OpenAIError("insufficient_quota", "insufficient_quota", "You exceeded your current quota"), "insufficient_quota: You exceeded your current quota", true},
		{`{"error":"model 'llama9' not found"}`, "model 'llama9' not found", false},
		{`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":null}}`, "invalid_request_error: Incorrect API key provided", false},
		{"upstream connect error", "upstream connect error", false},
	}
	for _, tt := range tests {
		if got := a.Failure(429, []byte(tt.body)); got.Message != tt.msg || got.Final != tt.final {
			t.Errorf("Failure(%s) = %+v, want %q final %v", tt.body, got, tt.msg, tt.final)
		}
	}
}

// FuzzDecode: the body is the provider's, untrusted.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(apitest.OpenAICompletion("tool_calls", "x", 1, 2, apitest.OpenAIToolCall("c", "n", `{"a":1}`))))
	f.Add([]byte(apitest.OpenAICompletion("stop", "hi", 1, 2)))
	f.Add([]byte(`{"choices":[{"message":{"content":[{"type":"text","text":"a"}],"tool_calls":[{"function":{"name":"n","arguments":{"b":2}}}]},"finish_reason":null}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Decode(body)
		if err != nil {
			return
		}
		again, err := inference.ParseResponse(r.Raw)
		if err != nil || !cmp.Equal(again.Blocks, r.Blocks) || again.StopReason != r.StopReason {
			t.Fatalf("canonical form does not round-trip (%v): %s", err, r.Raw)
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
