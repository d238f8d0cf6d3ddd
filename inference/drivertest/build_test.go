package drivertest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// TestFixtureWithoutEndpoint: with no MURMUR_INFERENCE_ENDPOINT the
// driver answers as murmur's drivers answer a failure: status error, the
// message as summary, the error response as data.
func TestFixtureWithoutEndpoint(t *testing.T) {
	c := compileFixture(t)
	in := `{"model":"m","max_tokens":8,"messages":[],"params":{},"system":"","tools":[]}`
	r, err := c.RunTool(context.Background(), component.Env{}, component.ToolInput{Data: &in})
	if err != nil {
		t.Fatal(err)
	}
	const msg = "driver: MURMUR_INFERENCE_ENDPOINT is not set"
	if r.Status != "error" || r.Summary == nil || *r.Summary != msg ||
		r.Data == nil || *r.Data != `{"error":"`+msg+`","stop_reason":"error"}` {
		t.Errorf("got %s %v %v", r.Status, r.Summary, r.Data)
	}
}

// TestFixtureRequestIsMurmurs: the request the fixture sends for a
// canonical request is byte for byte the one murmur's murmur-driver-openai
// sent for it when run by hand (keys sorted, stream, max_completion_tokens,
// an assistant's text beside tool calls dropped), to <endpoint>/chat/completions
// with the API key as a bearer token.
func TestFixtureRequestIsMurmurs(t *testing.T) {
	c := compileFixture(t)
	srv := apitest.New(t, func(apitest.Request) apitest.Reply {
		return apitest.Reply{Body: apitest.OpenAICompletion("stop", "ok", 1, 1)}
	})
	in := `{"model":"gpt-x","max_tokens":100,"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"hi"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"let me"},{"type":"tool_call","id":"c1","name":"bash","input":{"command":"ls"}}]},` +
		`{"role":"tool","tool_call_id":"c1","is_error":false,"content":[{"type":"text","text":"a.txt"}]}],` +
		`"tools":[{"name":"bash","parameters":{"type":"object"},"description":"run"}],"params":{},"system":"SYS"}`
	f := bind(t, c, srv.URL, nil)
	res, err := f.Run(context.Background(), []byte(in))
	if err != nil || res.Status != "passed" {
		t.Fatalf("%v %+v", err, res)
	}
	const murmurs = `{"max_completion_tokens":100,"messages":[{"content":"SYS","role":"system"},{"content":"hi","role":"user"},` +
		`{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"command\":\"ls\"}","name":"bash"},"id":"c1","type":"function"}]},` +
		`{"content":"a.txt","role":"tool","tool_call_id":"c1"}],"model":"gpt-x","stream":true,` +
		`"tools":[{"function":{"description":"run","name":"bash","parameters":{"type":"object"}},"type":"function"}]}`
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if string(r.Body) != murmurs || r.Path != "/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" ||
		r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("request %s %v\n%s\nwant\n%s", r.Path, r.Header, r.Body, murmurs)
	}
	if !json.Valid([]byte(*res.Data)) {
		t.Errorf("data %q", *res.Data)
	}
}
