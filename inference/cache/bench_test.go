package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// BenchmarkCacheHit is what a cached turn costs: the request's digest,
// reading the entry and checking it, for a ten-turn conversation whose
// answer is a 4 KB text.
func BenchmarkCacheHit(b *testing.B) {
	text, _ := json.Marshal(strings.Repeat("lorem ipsum ", 340))
	answer := `{"stop_reason":"end_turn","content":[{"type":"text","text":` + string(text) + `}],"usage":{"input_tokens":7,"output_tokens":3}}`
	model := &fakeModel{complete: func(inference.Case, *inference.Request) (*inference.Response, error) {
		return inference.ParseResponse([]byte(answer))
	}}
	src, _ := newSource(b, model)
	req := request("/w", "add")
	for i := range 10 {
		req.Messages = append(req.Messages, inference.AssistantMessage(json.RawMessage(`[{"type":"text","text":"step `+fmt.Sprint(i)+`"}]`)),
			inference.UserMessage(strings.Repeat("tool output ", 100)))
	}
	p, err := src.ForCase(context.Background(), newCase("m", "/w", 1))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), req, inference.NopObserver{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Complete(context.Background(), req, inference.NopObserver{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if got := model.calls.Load(); got != 1 {
		b.Fatalf("model requests: got %d, want 1", got)
	}
}
