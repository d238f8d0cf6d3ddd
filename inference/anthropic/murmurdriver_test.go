package anthropic

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// Each want below is what murmur's murmur-driver-anthropic (the .wasm of
// murmur's own test fixtures) returned, run by hand through
// sandbox/component against a local server serving the same body
// (docs/providers.md, "The built-in Anthropic provider against murmur's
// driver"): its data when its status was passed, "failed: " + its data
// when it was error. "error" is an answer murmur's loop refuses (E-RUN-007
// with the driver): a harness error either way.

// turn is what the loop gets from one answer.
func turn(t *testing.T, resp *inference.Response, err error) string {
	t.Helper()
	if err != nil {
		return "error"
	}
	if resp.DriverFailed {
		return "failed: " + resp.Error
	}
	b, _ := json.Marshal(struct {
		Content    json.RawMessage `json:"content"`
		StopReason string          `json:"stop_reason"`
	}{resp.Content, resp.StopReason})
	return string(b)
}

const (
	helloTurn = `{"content":[{"text":"Hello!","type":"text"}],"stop_reason":"end_turn"}`
	toolTurn  = `{"content":[{"text":"Let me look.","type":"text"},{"id":"toolu_01","input":{"command":"ls -la"},"name":"bash","type":"tool_call"}],"stop_reason":"tool_call"}`
	emptyTurn = `{"content":[],"stop_reason":"end_turn"}`
	thinkTurn = `{"content":[{"signature":"EqQBCkYIAhgC","text":"Let me think.","type":"thinking"},{"text":"42","type":"text"}],"stop_reason":"end_turn"}`
)

func unsupported(stop string) string {
	return `failed: {"error":"driver: unsupported Anthropic stop_reason '` + stop + `'","stop_reason":"error"}`
}

// driverExchanges are 2xx answers: JSON bodies, and the same answers as
// the event streams the driver's stream: true gets (sse).
func driverExchanges() []struct{ name, body, want string } {
	msg, txt := apitest.AnthropicMessage, apitest.AnthropicText
	bash := apitest.AnthropicToolUse("toolu_01", "bash", `{"command":"ls -la"}`)
	think := `{"type":"thinking","thinking":"Let me think.","signature":"EqQBCkYIAhgC"}`
	start := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
	overloaded := "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
	block := func(i, typ, extra string) string {
		return "event: content_block_start\ndata: {\"index\":" + i + ",\"content_block\":{\"type\":\"" + typ + "\"" + extra + "}}\n\n"
	}
	delta := func(i, typ, key, val string) string {
		return "event: content_block_delta\ndata: {\"index\":" + i + ",\"delta\":{\"type\":\"" + typ + "\",\"" + key + "\":\"" + val + "\"}}\n\n"
	}
	return []struct{ name, body, want string }{
		{"text", msg("end_turn", 12, 3, txt("Hello!")), helloTurn},
		{"text, stream", stream(msg("end_turn", 12, 3, txt("Hello!"))), helloTurn},
		{"tool_use", msg("tool_use", 40, 18, txt("Let me look."), bash), toolTurn},
		{"tool_use, stream", stream(msg("tool_use", 40, 18, txt("Let me look."), bash)), toolTurn},
		{"max_tokens", msg("max_tokens", 12, 3, txt("The answer is")), `{"content":[{"text":"The answer is","type":"text"}],"stop_reason":"max_tokens"}`},
		{"max_tokens, stream", stream(msg("max_tokens", 12, 3, txt("The answer is"))), `{"content":[{"text":"The answer is","type":"text"}],"stop_reason":"max_tokens"}`},
		{"stop_sequence", msg("stop_sequence", 12, 3, txt("a")), `{"content":[{"text":"a","type":"text"}],"stop_reason":"end_turn"}`},
		{"stop_sequence, stream", stream(msg("stop_sequence", 12, 3, txt("a"))), `{"content":[{"text":"a","type":"text"}],"stop_reason":"end_turn"}`},
		{"refusal", msg("refusal", 12, 0), unsupported("refusal")},
		{"refusal, stream", stream(msg("refusal", 12, 0)), unsupported("refusal")},
		{"pause_turn", msg("pause_turn", 12, 0, txt("partial")), unsupported("pause_turn")},
		{"pause_turn, stream", stream(msg("pause_turn", 12, 0, txt("partial"))), unsupported("pause_turn")},
		{"unknown stop reason, stream", stream(msg("model_context_window_exceeded", 12, 0)), unsupported("model_context_window_exceeded")},
		{"stop_reason null is end_turn", `{"type":"message","content":[{"type":"text","text":"x"}],"stop_reason":null}`, `{"content":[{"text":"x","type":"text"}],"stop_reason":"end_turn"}`},
		{"no stop_reason is end_turn", `{"type":"message","content":[{"type":"text","text":"x"}]}`, `{"content":[{"text":"x","type":"text"}],"stop_reason":"end_turn"}`},
		{"thinking kept from a stream", stream(msg("end_turn", 12, 3, think, txt("42"))), thinkTurn},
		{"thinking dropped from JSON", msg("end_turn", 12, 3, think, txt("42")), `{"content":[{"text":"42","type":"text"}],"stop_reason":"end_turn"}`},
		{"redacted thinking dropped, stream", stream(msg("end_turn", 12, 3, `{"type":"redacted_thinking","data":"abc"}`, txt("42"))), `{"content":[{"text":"42","type":"text"}],"stop_reason":"end_turn"}`},
		{"empty text dropped from a stream", stream(msg("end_turn", 12, 3, txt(""))), emptyTurn},
		{"empty text kept from JSON", msg("end_turn", 12, 3, txt("")), `{"content":[{"text":"","type":"text"}],"stop_reason":"end_turn"}`},
		{"tool_use with empty input, stream", stream(msg("tool_use", 1, 1, apitest.AnthropicToolUse("toolu_2", "guide", `{}`))), `{"content":[{"id":"toolu_2","input":{},"name":"guide","type":"tool_call"}],"stop_reason":"tool_call"}`},
		{"tool input null kept", `{"type":"message","content":[{"type":"tool_use","id":"t","name":"n","input":null}],"stop_reason":"tool_use"}`, `{"content":[{"id":"t","input":null,"name":"n","type":"tool_call"}],"stop_reason":"tool_call"}`},
		{"tool input not an object", `{"type":"message","content":[{"type":"tool_use","id":"t","name":"n","input":[1]}],"stop_reason":"tool_use"}`, "error"},
		{"tool_use without an id", `{"type":"message","content":[{"type":"tool_use","name":"n","input":{}}],"stop_reason":"tool_use"}`, "error"},
		{"tool_use stop without tool blocks", msg("tool_use", 1, 1, txt("hm")), `{"content":[{"text":"hm","type":"text"}],"stop_reason":"tool_call"}`},
		{"type not message", `{"type":"completion","content":[{"type":"text","text":"x"}],"stop_reason":"end_turn"}`, `{"content":[{"text":"x","type":"text"}],"stop_reason":"end_turn"}`},
		{"error object with status 200", apitest.AnthropicError("overloaded_error", "Overloaded"), emptyTurn},
		{"JSON array", `[1,2]`, emptyTurn},
		{"text not a string", `{"type":"message","content":[{"type":"text","text":5}],"stop_reason":"end_turn"}`, `{"content":[{"text":"","type":"text"}],"stop_reason":"end_turn"}`},
		{"malformed JSON", `{"type":"message","content":[{"type":"te`, `failed: {"error":"driver: failed to parse Anthropic response JSON: `},
		{"trailing characters", msg("end_turn", 1, 1, txt("ok")) + " x", `failed: {"error":"driver: failed to parse Anthropic response JSON: trailing characters at line 1 column 294","stop_reason":"error"}`},
		{"not UTF-8", "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"\xe2\x82A\"}]}", `failed: {"error":"driver: response body is not UTF-8: invalid utf-8 sequence of 2 bytes from index 52","stop_reason":"error"}`},
		{"empty body", ``, emptyTurn},
		{"HTML", `<html>hi</html>`, emptyTurn},
		{"stream with an error event", start + overloaded, emptyTurn},
		{"stream of an error event only", overloaded, emptyTurn},
		{"stream cut short", strings.Split(stream(msg("end_turn", 1, 1, txt("cut off"))), "event: message_delta")[0], `{"content":[{"text":"cut off","type":"text"}],"stop_reason":"end_turn"}`},
		{"stream with a tool input that does not parse", strings.Replace(stream(msg("tool_use", 1, 1, bash)), `ls -la`, `ls -la\"`, 1), `{"content":[{"id":"toolu_01","input":{},"name":"bash","type":"tool_call"}],"stop_reason":"tool_call"}`},
		{"stream with CRLF", strings.ReplaceAll(stream(msg("end_turn", 1, 1, txt("crlf"))), "\n", "\r\n"), `{"content":[{"text":"crlf","type":"text"}],"stop_reason":"end_turn"}`},
		{"stream with data: and no space", strings.ReplaceAll(stream(msg("end_turn", 1, 1, txt("x"))), "data: ", "data:"), emptyTurn},
		{"stream: blocks by index, a block restarted, a bad index read as 0, empty stop reason ignored, nothing after message_stop",
			block("3", "text", "") + delta("3", "text_delta", "text", "three") +
				"event: content_block_start\ndata: {\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\"}}\n\n" +
				delta("0", "input_json_delta", "partial_json", ` {\"k\":1} `) + delta("1.0", "text_delta", "text", "zero?") +
				"event: message_delta\ndata: {\"delta\":{\"stop_reason\":\"\"}}\n\nevent: message_stop\ndata: {}\n\n" + delta("3", "text_delta", "text", "after"),
			`{"content":[{"id":"t","input":{"k":1},"name":"n","type":"tool_call"},{"text":"three","type":"text"}],"stop_reason":"end_turn"}`},
		{"stream: a last line without a newline is not read",
			block("0", "text", "") + delta("0", "text_delta", "text", "kept") + "event: message_delta\ndata: {\"delta\":{\"stop_reason\":\"refusal\"}}\n",
			`{"content":[{"text":"kept","type":"text"}],"stop_reason":"end_turn"}`},
		{"stream: unsigned thinking kept, deltas of the wrong kind ignored, redacted_thinking an empty text block",
			block("0", "thinking", "") + delta("0", "thinking_delta", "thinking", "hmm") + block("1", "redacted_thinking", `,"data":"x"`) +
				delta("1", "text_delta", "text", "into redacted") + delta("0", "text_delta", "text", "wrong kind") + "event: message_stop\ndata: {}\n\n",
			`{"content":[{"signature":"","text":"hmm","type":"thinking"},{"text":"into redacted","type":"text"}],"stop_reason":"end_turn"}`},
		{"a number beyond f64 in JSON", msg("tool_use", 1, 1, apitest.AnthropicToolUse("t1", "calc", `{"n":1e400}`)), `failed: {"error":"driver: failed to parse Anthropic response JSON: `},
		{"a number beyond f64 in a tool's streamed input, or in an event",
			block("0", "tool_use", `,"id":"t","name":"n"`) + delta("0", "input_json_delta", "partial_json", `{\"n\":1e400}`) +
				block("1", "text", "") + strings.Replace(delta("1", "text_delta", "text", "lost"), `"index":1`, `"index":1,"x":1e400`, 1) + "event: message_stop\ndata: {}\n\n",
			`{"content":[{"id":"t","input":{},"name":"n","type":"tool_call"}],"stop_reason":"end_turn"}`},
		{"tool input keys sorted, HTML not escaped", msg("tool_use", 1, 1, apitest.AnthropicToolUse("t1", "calc", `{"z":1,"a":{"y":2.50,"b":1e2},"m":"<x>"}`)),
			`{"content":[{"id":"t1","input":{"a":{"b":100.0,"y":2.5},"m":"<x>","z":1},"name":"calc","type":"tool_call"}],"stop_reason":"tool_call"}`},
	}
}

// TestDecodeAsMurmurDriver pins, per recorded answer, the canonical
// response (or the failed ending) murmur's driver gave.
func TestDecodeAsMurmurDriver(t *testing.T) {
	for _, ex := range driverExchanges() {
		t.Run(ex.name, func(t *testing.T) {
			resp, err := Decode([]byte(ex.body))
			got := turn(t, resp, err)
			if !sameTurn(got, ex.want) {
				t.Errorf("built-in:      %s\nmurmur driver: %s", got, ex.want)
			}
			if err == nil {
				checkCanonical(t, resp)
			}
		})
	}
}

// sameTurn compares canonical responses as JSON values (the driver
// writes 1e2 as 100.0; HTML characters may be escaped), failed endings as
// text, or by their prefix when the driver's message ends in serde's own
// wording (want ends in ": ").
func sameTurn(got, want string) bool {
	if strings.HasPrefix(want, "{") {
		var g, w any
		return json.Unmarshal([]byte(got), &g) == nil && json.Unmarshal([]byte(want), &w) == nil && reflect.DeepEqual(g, w)
	}
	return got == want || strings.HasSuffix(want, ": ") && strings.HasPrefix(got, want)
}

// TestFailuresAsMurmurDriver: an answer of status 400 or more ends the
// session failed with "HTTP <status>: <body>", the driver's data, once
// the harness's own retries (none here) are spent; but a 401 or 403 is a
// harness error (E-EVL-014), whatever murmur's driver makes of it.
func TestFailuresAsMurmurDriver(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   string
	}{
		{400, apitest.AnthropicError("invalid_request_error", "max_tokens: must be positive"), `failed: {"error":"HTTP 400: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"max_tokens: must be positive\"},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}","stop_reason":"error"}`},
		{401, apitest.AnthropicError("authentication_error", "invalid x-api-key"), "error"}, // E-EVL-014: the harness's, not the model's
		{403, apitest.AnthropicError("permission_error", "no"), "error"},
		{404, apitest.AnthropicError("not_found_error", "model: claude-9"), `failed: {"error":"HTTP 404: {\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"model: claude-9\"},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}","stop_reason":"error"}`},
		{413, apitest.AnthropicError("request_too_large", "too big"), `failed: {"error":"HTTP 413: {\"type\":\"error\",\"error\":{\"type\":\"request_too_large\",\"message\":\"too big\"},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}","stop_reason":"error"}`},
		{429, apitest.AnthropicError("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"), `failed: {"error":"HTTP 429: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Number of request tokens has exceeded your per-minute rate limit\"},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}","stop_reason":"error"}`},
		{500, apitest.AnthropicError("api_error", "Internal server error"), `failed: {"error":"HTTP 500: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}","stop_reason":"error"}`},
		{529, apitest.AnthropicError("overloaded_error", "Overloaded"), `failed: {"error":"HTTP 529: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}","stop_reason":"error"}`},
		{502, "<html>\n<body>Bad gateway</body>\n</html>", `failed: {"error":"HTTP 502: <html>\n<body>Bad gateway</body>\n</html>","stop_reason":"error"}`},
		{500, "", `failed: {"error":"HTTP 500: ","stop_reason":"error"}`},
		{400, "bad \xff\xfe body", `failed: {"error":"driver: error response body is not UTF-8: invalid utf-8 sequence of 1 bytes from index 4","stop_reason":"error"}`},
	}
	for _, tt := range tests {
		srv := apitest.New(t, func(apitest.Request) apitest.Reply { return apitest.Reply{Status: tt.status, Body: tt.body} })
		a, err := New(inference.Config{Endpoint: srv.URL, Model: "claude-sonnet-4-5", APIKey: "sk-ant"})
		if err != nil {
			t.Fatal(err)
		}
		c := httpapi.NewClient(httpapi.Options{MaxRetries: -1, UnreachableAfter: -1})
		resp, err := c.Provider(a).Complete(context.Background(), short(`{}`), inference.NopObserver{})
		if got := turn(t, resp, err); got != tt.want {
			t.Errorf("HTTP %d: built-in:      %s (%v)\n          murmur driver: %s", tt.status, got, err, tt.want)
		}
	}
}
