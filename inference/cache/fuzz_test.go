package cache_test

import (
	"bytes"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/cache"
)

// FuzzParseEntry feeds the entry parser what a shared cache folder may
// hold. It must never panic, accept only a one-line answer to the request
// asked (never an error answer), and an accepted entry must come back the
// same through Entry.
func FuzzParseEntry(f *testing.F) {
	const sum = "ab12"
	for _, seed := range []string{
		`{"stop_reason":"end_turn","content":[{"type":"text","text":"hi"}],"request_sha256":"ab12"}`,
		`{"stop_reason":"tool_call","content":[{"type":"tool_call","id":"t1","name":"calc","input":{}}],"usage":{"input_tokens":1,"output_tokens":2},"request_sha256":"ab12"}` + "\n",
		`{"stop_reason":"end_turn","content":[],"murmur_eval_provider_usage":{"input_tokens":5,"output_tokens":6},"request_sha256":"ab12"}`,
		`{"stop_reason":"error","error":"x","request_sha256":"ab12"}`,
		`{"stop_reason":"end_turn","request_sha256":"ffff"}`,
		`{"stop_reason":"end_turn","request_sha256":7}`,
		"{\"stop_reason\":\"end_turn\",\n\"request_sha256\":\"ab12\"}",
		`[]`, ``, `{`, `null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := cache.ParseEntry(data, sum)
		if err != nil {
			return
		}
		if bytes.Contains(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			t.Fatalf("accepted an entry of several lines: %q", data)
		}
		if resp.StopReason == "error" || resp.DriverFailed {
			t.Fatalf("accepted an error answer: %q", data)
		}
		line, err := cache.Entry(resp, sum)
		if err != nil {
			return // an accepted entry whose raw bytes hold a line break inside a string
		}
		again, err := cache.ParseEntry(line, sum)
		if err != nil {
			t.Fatalf("entry %q of accepted %q does not parse: %v", line, data, err)
		}
		if again.StopReason != resp.StopReason || !bytes.Equal(again.Content, resp.Content) {
			t.Fatalf("round trip: got %s %s, want %s %s", again.StopReason, again.Content, resp.StopReason, resp.Content)
		}
		if (again.Usage == nil) != (resp.Usage == nil) || again.Usage != nil && *again.Usage != *resp.Usage {
			t.Fatalf("round trip usage: got %v, want %v", again.Usage, resp.Usage)
		}
	})
}
