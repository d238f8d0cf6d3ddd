package loop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// transcriptOf reads back what the case's loop recorded.
func transcriptOf(t *testing.T, c *pipeline.Case) *transcript.Transcript {
	t.Helper()
	o, ok := pipeline.Lookup(c, Result)
	if !ok || o.Transcript == nil {
		t.Fatal("the loop recorded no transcript")
	}
	return transcript.Read(o.Transcript.Encode())
}

// The loop records the conversation: the task and system prompt, each
// answer verbatim with its request's digest, each tool result as the
// model was sent it, and the end.
func TestLoopRecordsTheConversation(t *testing.T) {
	srv := apitest.New(t, func(r apitest.Request) apitest.Reply {
		if r.Call == 0 {
			return apitest.Reply{Body: apitest.AnthropicMessage("tool_use", 412, 37, apitest.AnthropicText("<b>I'll compute it.</b>"), apitest.AnthropicToolUse("toolu_01A", "calc", `{"expression":"6*7"}`))}
		}
		return apitest.Reply{Body: apitest.AnthropicMessage("end_turn", 480, 9, apitest.AnthropicText("6*7 = 42"))}
	})
	c := httpCase(t, quick(httpapi.Options{}), "a1", "What is 6*7?", anthropicConfig(srv))
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	tr := transcriptOf(t, c)
	if len(tr.Problems) != 0 || len(tr.Attempts) != 1 {
		t.Fatalf("attempts %d, problems %q", len(tr.Attempts), tr.Problems)
	}
	a := tr.Attempts[0]
	if a.Start.Task != "What is 6*7?" || a.Start.Model != "claude-sonnet-4-5" || !strings.Contains(a.Start.System, "[Capsule]") {
		t.Errorf("start = %+v", a.Start)
	}
	if len(a.Turns) != 2 {
		t.Fatalf("%d turns, want 2", len(a.Turns))
	}
	first, second := a.Turns[0], a.Turns[1]
	if first.Text != "<b>I'll compute it.</b>" || len(first.Calls) != 1 || first.Calls[0].Name != "calc" ||
		first.Answer.StopReason != "tool_call" || *first.Answer.InputTokens != 412 {
		t.Errorf("first turn = %+v", first)
	}
	if len(first.Results) != 1 || first.Results[0].ToolCallID != first.Calls[0].ID || first.Results[0].Output == "" {
		t.Errorf("first turn's results = %+v", first.Results)
	}
	var input map[string]string
	if err := json.Unmarshal(first.Calls[0].Input, &input); err != nil || input["expression"] != "6*7" {
		t.Errorf("call input = %s", first.Calls[0].Input)
	}
	d0, d1 := first.Answer.RequestSHA256, second.Answer.RequestSHA256
	if len(d0) != 64 || len(d1) != 64 || d0 == d1 {
		t.Errorf("request digests %q, %q: want two different SHA-256s", d0, d1)
	}
	if second.Text != "6*7 = 42" || tr.End == nil || tr.End.ExitStatus != "ok" || tr.End.Result != "6*7 = 42" {
		t.Errorf("second turn %+v, end %+v", second, tr.End)
	}
}

// A model call that fails is in the transcript with its error.
func TestLoopRecordsAFailedModelCall(t *testing.T) {
	srv := apitest.New(t, func(apitest.Request) apitest.Reply {
		return apitest.Reply{Status: 400, Body: `{"error":{"message":"bad request: no such model"}}`}
	})
	c := httpCase(t, quick(httpapi.Options{}), "a1", "What is 6*7?", anthropicConfig(srv))
	err := (Stage{}).Run(context.Background(), c)
	tr := transcriptOf(t, c)
	if tr.Turns() != 1 || !strings.Contains(tr.Attempts[0].Turns[0].Answer.Error, "no such model") {
		t.Errorf("turns %d, attempts %+v (the stage said %v)", tr.Turns(), tr.Attempts, err)
	}
}
