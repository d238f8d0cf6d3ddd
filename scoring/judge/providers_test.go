package judge

import (
	"context"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/live"
)

// The judge over each wire API the run speaks: the verdict tool is
// forced as each API asks (Chat Completions: tool_choice "required";
// Messages: {"type":"any"}), the key goes where each API wants it, and a
// tool-call verdict is read back.
func TestJudgeOverEachAPI(t *testing.T) {
	tests := []struct {
		provider, forced, auth string
		answer                 string
	}{
		{"openai", `"tool_choice":"required"`, "Authorization",
			apitest.OpenAICompletion("tool_calls", "", 300, 20, apitest.OpenAIToolCall("call_1", verdictTool, `{"score":0.8,"reason":"ok"}`))},
		{"anthropic", `"tool_choice":{"type":"any"}`, "X-Api-Key",
			apitest.AnthropicMessage("tool_use", 300, 20, apitest.AnthropicToolUse("toolu_1", verdictTool, `{"score":0.8,"reason":"ok"}`))},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			srv := apitest.New(t, func(apitest.Request) apitest.Reply { return apitest.Reply{Body: tt.answer} })
			j := New(Options{Source: live.New(httpapi.NewClient(httpapi.Options{})), Model: inference.Config{
				Transport: "http", Endpoint: srv.URL, Model: "judge-1", APIKey: "k", DriverArtifact: "murmur-driver-" + tt.provider}})
			cj, err := j.ForCase(context.Background(), caseInput(t))
			if err != nil {
				t.Fatal(err)
			}
			s, err := cj.Judge(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Pass || s.Value != 0.8 || s.Judge.InputTokens != 300 {
				t.Errorf("score %+v, judge %+v", s, s.Judge)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			body := string(reqs[0].Body)
			if !strings.Contains(body, tt.forced) || !strings.Contains(body, `"name":"`+verdictTool+`"`) || reqs[0].Header.Get(tt.auth) == "" {
				t.Errorf("request: %s, %s %q", body, tt.auth, reqs[0].Header.Get(tt.auth))
			}
		})
	}
}
