package anthropic

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// conversation is a request with every kind of block: images (one without
// a source type), signed and unsigned thinking, a block type the
// canonical format does not define, two tool results, a system prompt
// with white space around it, tools with blank and padded descriptions.
func conversation() *inference.Request {
	call := json.RawMessage(`[{"type":"text","text":"Let me compute."},{"type":"thinking","text":"6*7","signature":"sig"},{"type":"thinking","text":"unsigned"},{"type":"tool_call","id":"toolu_1","name":"calc","input":{"expression":"6*7"}},{"type":"tool_call","id":"toolu_2","name":"calc","input":{}},{"type":"weird","x":1}]`)
	img := json.RawMessage(`[{"type":"text","text":"see"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}},{"type":"image","source":{"media_type":"image/png","data":"AAAA"}}]`)
	return &inference.Request{
		MaxTokens: 512, Model: "claude-sonnet-4-5", Params: json.RawMessage(`{}`), System: "  be brief \n",
		Tools: []inference.Tool{{Name: "calc", Description: " calculator ", Parameters: json.RawMessage(`{"type":"object","properties":{"expression":{"type":"string"}}}`)},
			{Name: "blank", Description: "   ", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
		Messages: []inference.Message{
			inference.UserMessage("What is 6*7?"),
			{Role: "user", Content: img},
			inference.AssistantMessage(call),
			inference.ToolMessage("toolu_1", false, "42"),
			inference.ToolMessage("toolu_2", true, "missing expression"),
			inference.UserMessage("thanks"),
		},
	}
}

func short(params string) *inference.Request {
	return &inference.Request{MaxTokens: 256, Model: "claude-sonnet-4-5", Params: json.RawMessage(params), System: "be brief",
		Tools:    []inference.Tool{{Name: "bash", Description: "run a command", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Messages: []inference.Message{inference.UserMessage("list the files")}}
}

// The request bodies below are those murmur's murmur-driver-anthropic sent
// for the same canonical request and driver.config, recorded at a local
// server (docs/providers.md); they are compared as JSON values.
const (
	richMessages = `"messages":[{"content":[{"text":"What is 6*7?","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"see","type":"text"},{"source":{"data":"iVBO","media_type":"image/png","type":"base64"},"type":"image"},{"source":{"data":"AAAA","media_type":"image/png","type":"base64"},"type":"image"}],"role":"user"},` +
		`{"content":[{"text":"Let me compute.","type":"text"},%s{"id":"toolu_1","input":{"expression":"6*7"},"name":"calc","type":"tool_use"},{"id":"toolu_2","input":{},"name":"calc","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":[{"text":"42","type":"text"}],"tool_use_id":"toolu_1","type":"tool_result"}],"role":"user"},` +
		`{"content":[{"content":[{"text":"missing expression","type":"text"}],"tool_use_id":"toolu_2","type":"tool_result"}],"role":"user"},` +
		`{"content":[{"text":"thanks","type":"text"}],"role":"user"}]`
	richTools  = `"tools":[{"description":"calculator","input_schema":{"properties":{"expression":{"type":"string"}},"type":"object"},"name":"calc"},{"input_schema":{"properties":{},"type":"object"},"name":"blank"}]`
	shortTools = `"tools":[{"description":"run a command","input_schema":{"type":"object"},"name":"bash"}]`
	shortMsgs  = `"messages":[{"content":[{"text":"list the files","type":"text"}],"role":"user"}]`
)

func TestEncodeAsMurmurDriver(t *testing.T) {
	tests := []struct {
		name, cfg string
		req       *inference.Request
		want      string
		beta      string
	}{
		{name: "thinking off: thinking and unknown blocks dropped, tool results one message each, system trimmed", req: conversation(),
			want: `{"max_tokens":512,` + fmtMessages("") + `,"model":"claude-sonnet-4-5","stream":true,"system":"be brief",` + richTools + `}`},
		{name: "thinking on: signed thinking replayed, budget under max_tokens, sampling left out",
			cfg: `{"thinking":"enabled","thinking_budget_tokens":4096,"beta_features":[" a-1 ","","b-2"],"temperature":0.5,"top_p":0.9,"top_k":5}`, req: conversation(), beta: "a-1,b-2",
			want: `{"max_tokens":512,` + fmtMessages(`{"signature":"sig","thinking":"6*7","type":"thinking"},`) + `,"model":"claude-sonnet-4-5","stream":true,"system":"be brief","thinking":{"budget_tokens":511,"type":"enabled"},` + richTools + `}`},
		{name: "thinking in any case, default budget; beta string trimmed", cfg: `{"thinking":" Enabled ","beta_features":"  x-1  "}`, req: short(`{}`), beta: "x-1",
			want: `{"max_tokens":256,` + shortMsgs + `,"model":"claude-sonnet-4-5","stream":true,"system":"be brief","thinking":{"budget_tokens":255,"type":"enabled"},` + shortTools + `}`},
		{name: "params: required tool choice is any, others copied, top_p dropped beside temperature on Claude 4", req: short(`{"tool_choice":"required","temperature":0.2,"top_p":0.5,"stream":false,"metadata":{"user_id":"u"}}`),
			want: `{"max_tokens":256,` + shortMsgs + `,"metadata":{"user_id":"u"},"model":"claude-sonnet-4-5","stream":true,"system":"be brief","temperature":0.2,"tool_choice":{"type":"any"},` + shortTools + `}`},
		{name: "params on Claude 3: both sampling params, tool_choice as given", req: func() *inference.Request {
			r := short(`{"tool_choice":"auto","temperature":0.2,"top_p":0.5}`)
			r.Model = "claude-3-opus-20240229"
			return r
		}(), want: `{"max_tokens":256,` + shortMsgs + `,"model":"claude-3-opus-20240229","stream":true,"system":"be brief","temperature":0.2,"tool_choice":"auto",` + shortTools + `,"top_p":0.5}`},
		{name: "driver keys of the wrong type are ignored", cfg: `{"beta_features":1,"thinking_budget_tokens":"x","thinking":true}`, req: short(`{}`),
			want: `{"max_tokens":256,` + shortMsgs + `,"model":"claude-sonnet-4-5","stream":true,"system":"be brief",` + shortTools + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(inference.Config{Endpoint: "https://api.anthropic.com", APIKey: "sk-ant", DriverConfig: json.RawMessage(tt.cfg)})
			if err != nil {
				t.Fatal(err)
			}
			body, err := a.Encode(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatalf("want: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("request body (-murmur's driver +built-in):\n%s", diff)
			}
			h := http.Header{}
			a.Header(h)
			if h.Get("anthropic-beta") != tt.beta {
				t.Errorf("anthropic-beta = %q, want %q", h.Get("anthropic-beta"), tt.beta)
			}
		})
	}
}

func fmtMessages(thinking string) string { return fmt.Sprintf(richMessages, thinking) }

// TestEncodeConfigExtensions: murmur-eval's own driver.config keys (the
// driver has none of them) still apply, under the driver's rules.
func TestEncodeConfigExtensions(t *testing.T) {
	a, err := New(inference.Config{Endpoint: "https://x.example", DriverConfig: json.RawMessage(`{"temperature":0.5,"top_p":0.9,"top_k":3,"anthropic_version":"2024-01-01"}`)})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := a.Encode(short(`{"temperature":0.1}`))
	var got map[string]any
	_ = json.Unmarshal(body, &got)
	// params win over config; top_p goes beside temperature on Claude 4.
	if got["temperature"] != 0.1 || got["top_k"] != float64(3) || got["top_p"] != nil {
		t.Errorf("sampling = %v %v %v, want 0.1, 3, none", got["temperature"], got["top_k"], got["top_p"])
	}
	h := http.Header{}
	a.Header(h)
	if h.Get("anthropic-version") != "2024-01-01" {
		t.Errorf("anthropic-version = %q", h.Get("anthropic-version"))
	}
}

func TestHeaderAndURL(t *testing.T) {
	tests := []struct {
		endpoint, key, cfg, url string
		header                  map[string]string
	}{
		{endpoint: "https://api.anthropic.com", key: " sk-ant ", url: "https://api.anthropic.com/v1/messages",
			header: map[string]string{"x-api-key": "sk-ant", "anthropic-version": "2023-06-01", "content-type": "application/json", "accept": "", "anthropic-beta": ""}},
		// The driver appends /v1/messages to what it is given, /v1 or not.
		{endpoint: "http://127.0.0.1:8080/v1", key: "  ", url: "http://127.0.0.1:8080/v1/v1/messages", header: map[string]string{"x-api-key": ""}},
		{endpoint: "http://127.0.0.1:8080/proxy/", url: "http://127.0.0.1:8080/proxy/v1/messages", cfg: `{"beta_features":["  "]}`, header: map[string]string{"anthropic-beta": ""}},
		{endpoint: "http://127.0.0.1:8080/v1", url: "http://127.0.0.1:8080/v1/custom", cfg: `{"path":"custom","headers":{"X-Gateway":"g"}}`, header: map[string]string{"x-gateway": "g"}},
	}
	for _, tt := range tests {
		a, err := New(inference.Config{Endpoint: tt.endpoint, APIKey: tt.key, DriverConfig: json.RawMessage(tt.cfg)})
		if err != nil {
			t.Fatal(err)
		}
		if a.URL() != tt.url {
			t.Errorf("%s: URL = %s, want %s", tt.endpoint, a.URL(), tt.url)
		}
		h := http.Header{}
		a.Header(h)
		for k, v := range tt.header {
			if h.Get(k) != v {
				t.Errorf("%s: header %s = %q, want %q", tt.endpoint, k, h.Get(k), v)
			}
		}
		if _, ok := h["X-Api-Key"]; ok && tt.header["x-api-key"] == "" && tt.key != "" {
			t.Errorf("%s: x-api-key sent for a blank key", tt.endpoint)
		}
	}
}

func TestEncodeUsesManifestDefaults(t *testing.T) {
	a, _ := New(inference.Config{Endpoint: "http://127.0.0.1:1", Model: "from-manifest", MaxTokens: 99})
	body, _ := a.Encode(&inference.Request{Messages: []inference.Message{inference.UserMessage("hi")}, Tools: []inference.Tool{{Name: "t"}}})
	want := `{"max_tokens":99,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"model":"from-manifest","stream":true,"tools":[{"name":"t","input_schema":{"type":"object","properties":{}}}]}`
	if string(body) != want {
		t.Errorf("body = %s\nwant   %s", body, want)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []string{`{"temperature":"x"}`, `{"headers":[1]}`, `[]`} {
		if _, err := New(inference.Config{Endpoint: "https://x.example", DriverConfig: json.RawMessage(cfg)}); !errcode.Is(err, errcode.ProviderDriver) {
			t.Errorf("New(%s) = %v, want E-EVL-017", cfg, err)
		}
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name, body string
		usage      *inference.Usage
	}{
		{"cache tokens count as input", `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":2}}`,
			&inference.Usage{InputTokens: 1105, OutputTokens: 2, CachedInputTokens: 1000}},
		{"saturates at the 64-bit maximum", `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":9223372036854775807,"cache_creation_input_tokens":9223372036854775807,"cache_read_input_tokens":9223372036854775807,"output_tokens":9223372036854775807}}`,
			&inference.Usage{InputTokens: math.MaxInt64, OutputTokens: math.MaxInt64, CachedInputTokens: math.MaxInt64}},
		// The driver ignores usage: a bad one is dropped, the answer kept.
		{"negative is unknown", `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":-5,"output_tokens":1}}`, nil},
		{"past int64 is unknown", `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":18446744073709551615,"output_tokens":1}}`, nil},
		{"not a number is unknown", `{"type":"message","content":[],"stop_reason":"end_turn","usage":{"input_tokens":"5"}}`, nil},
		{"stream: input from message_start, output from message_delta", stream(apitest.AnthropicMessage("end_turn", 1, 1, apitest.AnthropicText("x"))),
			&inference.Usage{InputTokens: 25, OutputTokens: 15}},
	}
	for _, tt := range tests {
		r, err := Decode([]byte(tt.body))
		if err != nil || r.DriverFailed {
			t.Fatalf("%s: Decode = %+v, %v", tt.name, r, err)
		}
		if !cmp.Equal(r.Usage, tt.usage) {
			t.Errorf("%s: usage %+v, want %+v", tt.name, r.Usage, tt.usage)
		}
	}
}

// TestUTF8Error: the reasons murmur's driver gives for a body that is not
// UTF-8 (Rust's from_utf8), which Decode and Failure use.
func TestUTF8Error(t *testing.T) {
	for in, want := range map[string]string{
		"ok é":             "",
		"ab\xffcd":         "invalid utf-8 sequence of 1 bytes from index 2",
		"\xe2\x82A":        "invalid utf-8 sequence of 2 bytes from index 0",
		"x\xed\xa0\x80":    "invalid utf-8 sequence of 1 bytes from index 1", // a surrogate
		"\xf0\x9f\x98":     "incomplete utf-8 byte sequence from index 0",
		"\xf4\x90\x80\x80": "invalid utf-8 sequence of 1 bytes from index 0",
		"\xf0\x9f\x98A":    "invalid utf-8 sequence of 3 bytes from index 0",
	} {
		if got := httpapi.UTF8Error([]byte(in)); got != want {
			t.Errorf("httpapi.UTF8Error(%q) = %q, want %q", in, got, want)
		}
	}
}
