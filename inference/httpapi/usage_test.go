package httpapi

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
)

func TestReportedUsage(t *testing.T) {
	u := func(in, out int64) *inference.Usage { return &inference.Usage{InputTokens: in, OutputTokens: out} }
	tests := []struct {
		name string
		body string
		want *inference.Usage
	}{
		{"anthropic JSON", `{"type":"message","content":[],"usage":{"input_tokens":10,"output_tokens":3}}`, u(10, 3)},
		{"anthropic JSON with cache", `{"usage":{"input_tokens":10,"cache_creation_input_tokens":2,"cache_read_input_tokens":5,"output_tokens":3}}`,
			&inference.Usage{InputTokens: 17, OutputTokens: 3, CachedInputTokens: 5}},
		{"openai JSON with cached tokens", `{"usage":{"prompt_tokens":2000,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":1536}}}`,
			&inference.Usage{InputTokens: 2000, OutputTokens: 4, CachedInputTokens: 1536}},
		{"openai cached tokens not a count", `{"usage":{"prompt_tokens":20,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":-3}}}`, u(20, 4)},
		{"openai JSON", `{"choices":[],"usage":{"prompt_tokens":17,"completion_tokens":4,"total_tokens":21}}`, u(17, 4)},
		{"canonical JSON", `{"content":[{"text":"hi","type":"text"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}`, u(1, 2)},
		{"no usage", `{"content":[],"stop_reason":"end_turn"}`, nil},
		{"usage null", `{"usage":null}`, nil},
		{"negative count", `{"usage":{"input_tokens":-1,"output_tokens":3}}`, nil},
		{"count not an integer", `{"usage":{"input_tokens":"10","output_tokens":3}}`, nil},
		{"not JSON", `{"usage":`, nil},
		{"anthropic stream", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":9}}\n\n", u(12, 9)},
		{"openai stream with usage", "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n", u(7, 2)},
		{"openai stream without usage", "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReportedUsage([]byte(tt.body))
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("ReportedUsage = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzReportedUsage: a 2xx body is the provider's (or anything a hostile
// endpoint sends): reading its usage never panics, never yields a negative
// count, and reads the same twice.
func FuzzReportedUsage(f *testing.F) {
	for _, seed := range []string{
		`{"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":3}}`,
		`{"usage":{"prompt_tokens":9223372036854775807,"completion_tokens":9223372036854775807,"input_tokens":1}}`,
		"event: message_start\ndata: {\"message\":{\"usage\":{\"input_tokens\":12}}}\n\ndata: {\"usage\":{\"output_tokens\":9}}\n",
		"data: {\"usage\":{\"prompt_tokens\":-1}}\n\ndata: [DONE]\n",
		`{"usage":{"input_tokens":1e3,"output_tokens":null}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		u := ReportedUsage(body)
		if u != nil && (u.InputTokens < 0 || u.OutputTokens < 0 || u.CachedInputTokens < 0) {
			t.Fatalf("ReportedUsage(%q) = %+v: a negative count", body, u)
		}
		again := ReportedUsage(body)
		if (u == nil) != (again == nil) || u != nil && *u != *again {
			t.Fatalf("ReportedUsage(%q) = %+v, then %+v", body, u, again)
		}
	})
}
