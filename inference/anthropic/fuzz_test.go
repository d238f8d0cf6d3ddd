package anthropic

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// FuzzDecode: the body is the provider's, untrusted, JSON or a stream.
// Decode never panics, and what it accepts is a canonical response the
// loop can use, or a failed ending carrying the driver's error data.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(apitest.AnthropicMessage("tool_use", 1, 2, apitest.AnthropicToolUse("t", "n", `{"a":[1]}`), apitest.AnthropicText("x"))))
	f.Add([]byte(apitest.AnthropicMessage("pause_turn", 1, 2)))
	f.Add([]byte(apitest.AnthropicError("api_error", "x")))
	f.Add([]byte(`{"type":"message","content":[{"type":"thinking","thinking":"t","signature":"s"}],"stop_reason":null}`))
	f.Add([]byte(stream(apitest.AnthropicMessage("tool_use", 1, 2, `{"type":"thinking","thinking":"t","signature":"s"}`, apitest.AnthropicToolUse("t", "n", `{"a":[1]}`)))))
	f.Add([]byte("event: content_block_start\ndata: {\"index\":4294967297,\"content_block\":{\"type\":\"tool_use\"}}\n\n"))
	f.Add([]byte{'{', 0xff})
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
	if r.DriverFailed {
		if r.StopReason != inference.StopError || r.Error == "" {
			t.Fatalf("failed ending without the driver's data: %+v", r)
		}
		return
	}
	again, err := inference.ParseResponse(r.Raw)
	if err != nil {
		t.Fatalf("accepted a response whose canonical form does not parse: %v\n%s", err, r.Raw)
	}
	if !cmp.Equal(again.Blocks, r.Blocks) || again.StopReason != r.StopReason {
		t.Fatalf("canonical form does not round-trip: %s", r.Raw)
	}
	switch r.StopReason {
	case inference.StopEndTurn, inference.StopToolCall, inference.StopMaxTokens:
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
		fl := a.Failure(500, body)
		if len(fl.Message) > 4*len(body)+16 || len(fl.Text) > 200 {
			t.Fatalf("message longer than its body: %q", fl.Message)
		}
	})
}
