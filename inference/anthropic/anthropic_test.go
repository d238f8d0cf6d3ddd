package anthropic

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

func conversation() *inference.Request {
	call := json.RawMessage(`[{"type":"text","text":"Let me compute."},{"type":"thinking","text":"6*7","signature":"sig"},{"type":"tool_call","id":"toolu_1","name":"calc","input":{"expression":"6*7"}},{"type":"tool_call","id":"toolu_2","name":"calc","input":{}}]`)
	return &inference.Request{
		MaxTokens: 512,
		Model:     "claude-sonnet-4-5",
		Params:    json.RawMessage(`{"tool_choice":"required"}`),
		System:    "be brief",
		Tools:     []inference.Tool{{Name: "calc", Description: "calculator", Parameters: json.RawMessage(`{"type":"object","properties":{"expression":{"type":"string"}}}`)}, {Name: "guide"}},
		Messages: []inference.Message{
			inference.UserMessage("What is 6*7?"),
			inference.AssistantMessage(call),
			inference.ToolMessage("toolu_1", false, "42"),
			inference.ToolMessage("toolu_2", true, "missing expression"),
		},
	}
}

func TestEncodeMapsMurmurToMessages(t *testing.T) {
	a, err := New(inference.Config{Endpoint: "https://api.anthropic.com", APIKey: "sk-ant", DriverConfig: json.RawMessage(`{"thinking":"enabled","beta_features":["a-1","b-2"],"temperature":0.5,"unknown":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	body, err := a.Encode(conversation())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"claude-sonnet-4-5","max_tokens":512,"system":"be brief","messages":[` +
		`{"role":"user","content":[{"type":"text","text":"What is 6*7?"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"Let me compute."},{"type":"thinking","thinking":"6*7","signature":"sig"},{"type":"tool_use","id":"toolu_1","name":"calc","input":{"expression":"6*7"}},{"type":"tool_use","id":"toolu_2","name":"calc","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"42"}]},{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"missing expression"}],"is_error":true}]}],` +
		`"tools":[{"name":"calc","description":"calculator","input_schema":{"type":"object","properties":{"expression":{"type":"string"}}}},{"name":"guide","input_schema":{"type":"object","properties":{}}}],` +
		`"tool_choice":{"type":"any"},"thinking":{"type":"enabled","budget_tokens":1024},"temperature":0.5}`
	if diff := cmp.Diff(want, string(body)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
	h := http.Header{}
	a.Header(h)
	for k, v := range map[string]string{"x-api-key": "sk-ant", "anthropic-version": "2023-06-01", "anthropic-beta": "a-1,b-2", "content-type": "application/json"} {
		if h.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
		}
	}
	if a.URL() != "https://api.anthropic.com/v1/messages" {
		t.Errorf("URL = %s", a.URL())
	}
}

func TestEncodeLeavesOutEmptySystemAndUsesManifestDefaults(t *testing.T) {
	a, _ := New(inference.Config{Endpoint: "http://127.0.0.1:1", Model: "from-manifest", MaxTokens: 99})
	body, _ := a.Encode(&inference.Request{Messages: []inference.Message{inference.UserMessage("hi")}})
	want := `{"model":"from-manifest","max_tokens":99,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`
	if string(body) != want {
		t.Errorf("body = %s\nwant   %s", body, want)
	}
	h := http.Header{}
	a.Header(h)
	if _, ok := h["X-Api-Key"]; ok {
		t.Error("x-api-key sent without an api_key")
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []string{`{"beta_features":1}`, `{"thinking_budget_tokens":"x"}`, `[]`} {
		if _, err := New(inference.Config{Endpoint: "https://x.example", DriverConfig: json.RawMessage(cfg)}); !errcode.Is(err, errcode.ProviderDriver) {
			t.Errorf("New(%s) = %v, want E-EVL-017", cfg, err)
		}
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, body string
		stop, text string
		calls      []string // name(input)
		usage      *inference.Usage
		errMsg     string
		wantErr    bool
	}{
		{name: "tool use", body: apitest.AnthropicMessage("tool_use", 20, 9, apitest.AnthropicText("Computing."), apitest.AnthropicToolUse("toolu_1", "calc", `{"expression": "6*7"}`)),
			stop: "tool_call", text: "Computing.", calls: []string{`calc{"expression":"6*7"}`}, usage: &inference.Usage{InputTokens: 20, OutputTokens: 9}},
		{name: "end turn", body: apitest.AnthropicMessage("end_turn", 30, 4, apitest.AnthropicText("42")), stop: "end_turn", text: "42", usage: &inference.Usage{InputTokens: 30, OutputTokens: 4}},
		{name: "stop sequence", body: apitest.AnthropicMessage("stop_sequence", 1, 1, apitest.AnthropicText("a")), stop: "end_turn", text: "a", usage: &inference.Usage{InputTokens: 1, OutputTokens: 1}},
		{name: "max tokens", body: apitest.AnthropicMessage("max_tokens", 1, 8, apitest.AnthropicText("cut")), stop: "max_tokens", text: "cut", usage: &inference.Usage{InputTokens: 1, OutputTokens: 8}},
		{name: "refusal is an error response", body: apitest.AnthropicMessage("refusal", 1, 0), stop: "error", errMsg: "anthropic stop_reason refusal is not supported", usage: &inference.Usage{InputTokens: 1}},
		{name: "cache tokens count as input", body: `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":2}}`,
			stop: "end_turn", usage: &inference.Usage{InputTokens: 1105, OutputTokens: 2}},
		{name: "other blocks dropped, tool input null", body: `{"type":"message","content":[{"type":"redacted_thinking","data":"x"},{"type":"tool_use","id":"t","name":"n","input":null}],"stop_reason":"tool_use"}`,
			stop: "tool_call", calls: []string{`n{}`}},
		{name: "error object with 200", body: apitest.AnthropicError("overloaded_error", "Overloaded"), wantErr: true},
		{name: "not json", body: `<html>`, wantErr: true},
		{name: "wrong type", body: `{"type":"completion"}`, wantErr: true},
		{name: "tool input not an object", body: `{"type":"message","content":[{"type":"tool_use","id":"t","name":"n","input":[1]}],"stop_reason":"tool_use"}`, wantErr: true},
		{name: "tool use without id", body: `{"type":"message","content":[{"type":"tool_use","name":"n","input":{}}],"stop_reason":"tool_use"}`, wantErr: true},
		{name: "negative usage", body: `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":-5,"output_tokens":1}}`, wantErr: true},
		{name: "usage at the 64-bit maximum saturates", body: `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":9223372036854775807,"cache_creation_input_tokens":9223372036854775807,"cache_read_input_tokens":9223372036854775807,"output_tokens":9223372036854775807}}`,
			stop: "end_turn", usage: &inference.Usage{InputTokens: math.MaxInt64, OutputTokens: math.MaxInt64}},
		{name: "usage past int64 (MaxUint64) is refused", body: `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":18446744073709551615,"output_tokens":1}}`, wantErr: true},
		{name: "negative cache usage", body: `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":5,"cache_read_input_tokens":-9223372036854775808,"output_tokens":1}}`, wantErr: true},
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
				calls = append(calls, c.Name+string(c.Input))
			}
			if r.StopReason != tt.stop || r.Text() != tt.text || r.Error != tt.errMsg || !cmp.Equal(calls, tt.calls) || !cmp.Equal(r.Usage, tt.usage) {
				t.Errorf("Decode = stop %q text %q err %q calls %v usage %+v; want %q %q %q %v %+v", r.StopReason, r.Text(), r.Error, calls, r.Usage, tt.stop, tt.text, tt.errMsg, tt.calls, tt.usage)
			}
		})
	}
}

func TestFailureMessage(t *testing.T) {
	a, _ := New(inference.Config{Endpoint: "https://x.example"})
	if got := a.Failure(429, []byte(apitest.AnthropicError("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"))); got.Message != "rate_limit_error: Number of request tokens has exceeded your per-minute rate limit" || got.Final {
		t.Errorf("Failure = %+v", got)
	}
	if got := a.Failure(502, []byte("<html>\n<body>Bad gateway</body>\n</html>")); got.Message != "<html> <body>Bad gateway</body> </html>" {
		t.Errorf("Failure of HTML = %+v", got)
	}
}

// FuzzDecode: the body is the provider's, untrusted. Decode never panics,
// and what it accepts is a canonical response the loop can use.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(apitest.AnthropicMessage("tool_use", 1, 2, apitest.AnthropicToolUse("t", "n", `{"a":[1]}`), apitest.AnthropicText("x"))))
	f.Add([]byte(apitest.AnthropicMessage("pause_turn", 1, 2)))
	f.Add([]byte(apitest.AnthropicError("api_error", "x")))
	f.Add([]byte(`{"type":"message","content":[{"type":"thinking","thinking":"t","signature":"s"}],"stop_reason":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Decode(body)
		if err != nil {
			return
		}
		checkCanonical(t, r)
	})
}

func checkCanonical(t *testing.T, r *inference.Response) {
	t.Helper()
	again, err := inference.ParseResponse(r.Raw)
	if err != nil {
		t.Fatalf("accepted a response whose canonical form does not parse: %v\n%s", err, r.Raw)
	}
	if !cmp.Equal(again.Blocks, r.Blocks) || again.StopReason != r.StopReason {
		t.Fatalf("canonical form does not round-trip: %s", r.Raw)
	}
	switch r.StopReason {
	case inference.StopEndTurn, inference.StopToolCall, inference.StopMaxTokens:
	case inference.StopError:
		if r.Error == "" {
			t.Fatal("error response without a message")
		}
	default:
		t.Fatalf("stop reason %q", r.StopReason)
	}
}

// FuzzFailure: error bodies are untrusted too.
func FuzzFailure(f *testing.F) {
	f.Add([]byte(apitest.AnthropicError("a", "b")))
	f.Add([]byte{0xff, '{'})
	a, _ := New(inference.Config{Endpoint: "https://x.example"})
	f.Fuzz(func(t *testing.T, body []byte) {
		if m := a.Failure(500, body).Message; len(m) > 4*len(body)+16 {
			t.Fatalf("message longer than its body: %q", m)
		}
	})
}
