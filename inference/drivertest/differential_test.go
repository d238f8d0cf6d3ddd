package drivertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/driver"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/openai"
)

// outcome is what one turn gave the agent loop: a canonical response
// (stop_reason, content, error; usage left out), a driver failure (the
// session ends failed with its text), or a provider error's code.
type outcome struct {
	canonical string
	failed    string // a prefix of the driver's error text
	code      string
}

func (o outcome) String() string {
	switch {
	case o.failed != "":
		return "driver failed: " + o.failed
	case o.code != "":
		return "error " + o.code
	}
	return o.canonical
}

// observe reduces a turn to its outcome; failed keeps the whole text.
func observe(t *testing.T, resp *inference.Response, err error) outcome {
	t.Helper()
	if err != nil {
		code := errcode.Code(err)
		if code == "" {
			t.Fatalf("uncoded error: %v", err)
		}
		return outcome{code: code}
	}
	if resp.DriverFailed {
		// The loop's text is the driver's data: the error response, whose
		// message is compared.
		var e struct {
			Error      string `json:"error"`
			StopReason string `json:"stop_reason"`
		}
		if json.Unmarshal([]byte(resp.Error), &e) != nil || e.StopReason != inference.StopError {
			t.Fatalf("driver failed without an error response: %s", resp.Error)
		}
		return outcome{failed: e.Error}
	}
	b, _ := json.Marshal(struct {
		Content    json.RawMessage `json:"content"`
		Error      string          `json:"error,omitempty"`
		StopReason string          `json:"stop_reason"`
	}{resp.Content, resp.Error, resp.StopReason})
	return outcome{canonical: string(b)}
}

func (o outcome) matches(got outcome) bool {
	if o.failed != "" {
		return strings.HasPrefix(got.failed, o.failed)
	}
	return o == got
}

// exchange is one recorded answer of a Chat Completions server, served as
// a JSON completion to a client that did not ask for a stream (the
// built-in provider) and as the same completion's server-sent events to
// one that did (murmur's driver sends stream: true), unless json is set.
type exchange struct {
	name   string
	status int
	body   string
	json   bool // serve the JSON body even to a streaming client
	// want is what the driver fixture and the built-in provider both give,
	// the same as murmur's murmur-driver-openai gave on this exchange
	// (checked by hand, docs/providers.md).
	want outcome
}

const (
	helloTurn = `{"content":[{"text":"Hello!","type":"text"}],"stop_reason":"end_turn"}`
	toolTurn  = `{"content":[{"id":"call_Qn2","input":{"command":"ls -la"},"name":"bash","type":"tool_call"}],"stop_reason":"tool_call"}`
)

func exchanges() []exchange {
	bash := apitest.OpenAIToolCall("call_Qn2", "bash", `{"command":"ls -la"}`)
	refusal := strings.Replace(apitest.OpenAICompletion("stop", "", 9, 4), `"refusal":null`, `"refusal":"I can't help with that."`, 1)
	return []exchange{
		{name: "text", status: 200, body: apitest.OpenAICompletion("stop", "Hello!", 12, 3), want: outcome{canonical: helloTurn}},
		{name: "tool call", status: 200, body: apitest.OpenAICompletion("tool_calls", "", 40, 18, bash), want: outcome{canonical: toolTurn}},
		{name: "tool call, JSON to a stream request", status: 200, json: true, body: apitest.OpenAICompletion("tool_calls", "", 40, 18, bash),
			want: outcome{canonical: toolTurn}},
		{name: "max_tokens", status: 200, body: apitest.OpenAICompletion("length", "The answer is", 12, 3),
			want: outcome{canonical: `{"content":[{"text":"The answer is","type":"text"}],"stop_reason":"max_tokens"}`}},
		{name: "400", status: 400, body: apitest.OpenAIError("invalid_request_error", "model_not_found", "The model `gpt-9` does not exist"),
			want: outcome{failed: `HTTP 400: {"error":{"message":"The model`}},
		{name: "500", status: 500, body: apitest.OpenAIError("server_error", "", "The server had an error"),
			want: outcome{failed: `HTTP 500: {"error"`}},
		{name: "429", status: 429, body: apitest.OpenAIError("requests", "rate_limit_exceeded", "Rate limit reached"),
			want: outcome{failed: `HTTP 429: {"error"`}},
		{name: "malformed JSON", status: 200, json: true, body: `{"choices":[{"message":{"content":"Hel`,
			want: outcome{failed: "driver: failed to parse OpenAI response JSON: "}},
		{name: "refusal", status: 200, body: refusal,
			want: outcome{canonical: `{"content":[],"stop_reason":"end_turn"}`}},
		{name: "content_filter", status: 200, body: apitest.OpenAICompletion("content_filter", "", 9, 0),
			want: outcome{failed: "OpenAI response blocked by content_filter"}},
		{name: "text with a tool call", status: 200, body: apitest.OpenAICompletion("tool_calls", "Let me look.", 40, 18, bash),
			want: outcome{canonical: toolTurn}},
		{name: "tool call with finish_reason stop", status: 200, body: apitest.OpenAICompletion("stop", "", 40, 18, bash),
			want: outcome{canonical: strings.Replace(toolTurn, `"stop_reason":"tool_call"`, `"stop_reason":"end_turn"`, 1)}},
		{name: "arguments not JSON", status: 200, body: apitest.OpenAICompletion("tool_calls", "", 40, 18, apitest.OpenAIToolCall("c", "bash", "{cmd")),
			want: outcome{failed: "driver: failed to parse OpenAI tool call arguments JSON: "}},
	}
}

// edgeExchanges are answers served as they are to both sides, each with
// what murmur's driver gave on it (checked by hand): how it reads content,
// tool calls, arguments and numbers, a stream, and what it refuses.
func edgeExchanges() []exchange {
	call := func(args string) string {
		return `{"choices":[{"message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":` + args + `}}]},"finish_reason":"tool_calls"}]}`
	}
	text := func(content, finish string) string {
		return `{"choices":[{"message":{"content":` + content + `},"finish_reason":` + finish + `}]}`
	}
	empty := outcome{canonical: `{"content":[],"stop_reason":"end_turn"}`}
	ex := []exchange{
		{name: "empty content", body: text(`""`, `"stop"`), want: outcome{canonical: `{"content":[{"text":"","type":"text"}],"stop_reason":"end_turn"}`}},
		{name: "content parts", body: text(`[{"type":"text","text":"a"},{"type":"text","text":""},{"type":"refusal","refusal":"no"},{"type":"text"},"s",{"type":"text","text":"b"}]`, `"stop"`),
			want: outcome{canonical: `{"content":[{"text":"a","type":"text"},{"text":"","type":"text"},{"text":"b","type":"text"}],"stop_reason":"end_turn"}`}},
		{name: "content of another type, finish_reason of another type", body: text(`5`, `5`), want: empty},
		{name: "choice not an object", body: `{"choices":[5]}`, want: empty},
		{name: "html", body: `<html>hi</html>`, want: empty},
		{name: "tool calls under no finish_reason", body: `{"choices":[{"message":{"content":"hi","tool_calls":[{"id":"c","function":{"name":"bash","arguments":"{}"}}]},"finish_reason":null}]}`,
			want: outcome{canonical: `{"content":[{"id":"c","input":{},"name":"bash","type":"tool_call"}],"stop_reason":"end_turn"}`}},
		{name: "arguments not a string", body: call(`{"x":1}`), want: outcome{canonical: `{"content":[{"id":"c","input":{},"name":"bash","type":"tool_call"}],"stop_reason":"tool_call"}`}},
		{name: "arguments: keys and numbers", body: call(`"{\"n\":{\"b\":1,\"a\":2},\"f\":1.50,\"e\":1e2,\"big\":12345678901234567890123,\"tiny\":1e-6,\"small\":1.5e-5}"`),
			want: outcome{canonical: `{"content":[{"id":"c","input":{"big":1.2345678901234568e+22,"e":100.0,"f":1.5,"n":{"a":2,"b":1},"small":0.000015,"tiny":1e-6},"name":"bash","type":"tool_call"}],"stop_reason":"tool_call"}`}},
		{name: "stream: tool calls by index, data: needs its space", body: "data: {\"choices\":[{\"delta\":{\"content\":\"hm\",\"tool_calls\":[{\"index\":1,\"id\":\"c1\",\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\ndata:{\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
			want: outcome{canonical: `{"content":[{"id":"c1","input":{"a":1},"name":"bash","type":"tool_call"}],"stop_reason":"tool_call"}`}},
		{name: "no choices", body: `{"choices":[]}`, want: outcome{failed: "driver: OpenAI response missing choices[0]"}},
		{name: "an error with status 200", body: apitest.OpenAIError("server_error", "x", "boom"), want: outcome{failed: "driver: OpenAI response missing choices[0]"}},
		{name: "function_call", body: text(`"x"`, `"function_call"`), want: outcome{failed: "driver: unsupported OpenAI finish_reason 'function_call'"}},
		{name: "trailing characters", body: text(`"a"`, `"stop"`) + " x", want: outcome{failed: "driver: failed to parse OpenAI response JSON: "}},
		{name: "empty arguments", body: call(`""`), want: outcome{failed: "driver: failed to parse OpenAI tool call arguments JSON: "}},
		{name: "arguments with trailing characters", body: call(`"{} x"`), want: outcome{failed: "driver: failed to parse OpenAI tool call arguments JSON: "}},
		{name: "arguments past the f64 range", body: call(`"{\"x\":1e400}"`), want: outcome{failed: "driver: failed to parse OpenAI tool call arguments JSON: "}},
		{name: "400 with an empty body", status: 400, want: outcome{failed: "HTTP 400: "}},
		{name: "arguments not an object", body: call(`"[1]"`), want: outcome{code: errcode.RunAgentLoop}},
		{name: "tool call without id", body: `{"choices":[{"message":{"tool_calls":[{"function":{"name":"bash","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, want: outcome{code: errcode.RunAgentLoop}},
	}
	for i := range ex {
		ex[i].json = true
		if ex[i].status == 0 {
			ex[i].status = 200
		}
	}
	return ex
}

// TestDifferentialBuiltinAndDriver serves each exchange to the built-in
// provider (inference/openai over inference/httpapi, retries off) and to
// the driver fixture run as a case runs a driver (inference/driver), and
// compares what the loop gets.
func TestDifferentialBuiltinAndDriver(t *testing.T) {
	c := compileFixture(t)
	req := &inference.Request{MaxTokens: 256, Model: "gpt-4o", Params: json.RawMessage(`{}`), System: "be brief",
		Tools: []inference.Tool{{Name: "bash", Description: "run a command", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "now"}},
		Messages: []inference.Message{
			{Role: "user", Content: json.RawMessage(`[{"type":"text","text":"list the files"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]`)},
			inference.AssistantMessage(json.RawMessage(`[{"type":"thinking","text":"hm","signature":"s"},{"type":"text","text":"Let me look."},{"type":"tool_call","id":"call_0","name":"bash","input":{"z":"<&>","command":"ls","n":1.50}}]`)),
			inference.ToolMessage("call_0", false, "a.txt"),
			inference.AssistantMessage(json.RawMessage(`[{"type":"text","text":"One file."},{"type":"text","text":"Again?"}]`)),
			inference.UserMessage("yes")}}
	for _, ex := range append(exchanges(), edgeExchanges()...) {
		t.Run(ex.name, func(t *testing.T) {
			srv := apitest.New(t, func(r apitest.Request) apitest.Reply {
				if !ex.json && ex.status == 200 && strings.Contains(string(r.Body), `"stream":true`) {
					return apitest.Reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: stream(t, ex.body)}
				}
				return apitest.Reply{Status: ex.status, Header: map[string]string{"Content-Type": "application/json"}, Body: ex.body}
			})
			client := httpapi.NewClient(httpapi.Options{MaxRetries: -1, UnreachableAfter: -1})
			inf := inference.Config{Transport: "http", Endpoint: srv.URL, Model: "gpt-4o", APIKey: "sk-test", DriverArtifact: "murmur-driver-openai"}
			api, err := openai.New(inf)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Provider(api).Complete(context.Background(), req, inference.NopObserver{})
			builtin := observe(t, resp, err)

			drv := bind(t, c, srv.URL, client.GuestClient())
			p, err := driver.New(nil).ForCase(context.Background(), inference.Case{ID: "c1", Inference: inf, Driver: drv})
			if err != nil {
				t.Fatal(err)
			}
			resp, err = p.Complete(context.Background(), req, inference.NopObserver{})
			viaDriver := observe(t, resp, err)

			if !ex.want.matches(viaDriver) {
				t.Errorf("driver:   %v\nwant      %v", viaDriver, ex.want)
			}
			if !ex.want.matches(builtin) {
				t.Errorf("built-in: %v\nwant      %v", builtin, ex.want)
			}
			if builtin != viaDriver {
				t.Errorf("built-in %v\ndriver   %v: they differ", builtin, viaDriver)
			}
			sameRequest(t, srv.Requests())
			for _, r := range srv.Requests() {
				if r.Path != "/chat/completions" {
					t.Errorf("request %d: path %s, want /chat/completions", r.Call, r.Path)
				}
				if r.Header.Get("Authorization") != "Bearer sk-test" {
					t.Errorf("request %d: Authorization %q", r.Call, r.Header.Get("Authorization"))
				}
			}
		})
	}
}

// sameRequest checks that the built-in provider (the first request) sent
// what the driver (the second) sent, but for the driver's stream: true.
func sameRequest(t *testing.T, reqs []apitest.Request) {
	t.Helper()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want one from each side", len(reqs))
	}
	var builtin, drv map[string]any
	if json.Unmarshal(reqs[0].Body, &builtin) != nil || json.Unmarshal(reqs[1].Body, &drv) != nil {
		t.Fatalf("request bodies are not JSON objects:\n%s\n%s", reqs[0].Body, reqs[1].Body)
	}
	if drv["stream"] != true || builtin["stream"] != nil {
		t.Errorf("stream: driver %v, built-in %v; want true and absent", drv["stream"], builtin["stream"])
	}
	delete(drv, "stream")
	if diff := cmp.Diff(drv, builtin); diff != "" {
		t.Errorf("request bodies differ (-driver +built-in):\n%s", diff)
	}
}

// stream is a JSON chat completion as the chunks a streaming server sends:
// the content, each tool call whole, then the finish reason and [DONE].
func stream(t *testing.T, body string) string {
	t.Helper()
	var c struct {
		Choices []struct {
			Message struct {
				Content   *string           `json:"content"`
				Refusal   *string           `json:"refusal"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil || len(c.Choices) != 1 {
		t.Fatalf("not a one-choice completion: %v", err)
	}
	ch := c.Choices[0]
	var b strings.Builder
	chunk := func(delta string, finish string) {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, f)
	}
	chunk(`{"role":"assistant","content":""}`, "")
	if m := ch.Message.Content; m != nil {
		s, _ := json.Marshal(*m)
		chunk(`{"content":`+string(s)+`}`, "")
	}
	if m := ch.Message.Refusal; m != nil {
		s, _ := json.Marshal(*m)
		chunk(`{"refusal":`+string(s)+`}`, "")
	}
	for i, tc := range ch.Message.ToolCalls {
		var call map[string]any
		_ = json.Unmarshal(tc, &call)
		call["index"] = i
		s, _ := json.Marshal(call)
		chunk(`{"tool_calls":[`+string(s)+`]}`, "")
	}
	chunk(`{}`, ch.FinishReason)
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}
