package driver

import (
	"testing"
	"unicode/utf8"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// FuzzResponse feeds untrusted driver output to Response: it never
// panics, a passed result is either a parsed response with the data as
// Raw or an error, and a failed one always records as a line that replays
// as the same failure.
func FuzzResponse(f *testing.F) {
	f.Add("passed", `{"stop_reason":"end_turn","content":[{"type":"text","text":"hi"}]}`)
	f.Add("passed", `{"content":[]}`)
	f.Add("passed", `not json`)
	f.Add("error", `{"error":"HTTP 500","stop_reason":"error"}`)
	f.Add("failed", "line\nbreak \u2028 \x00")
	f.Fuzz(func(t *testing.T, status, data string) {
		resp, err := Response(inference.DriverResult{Status: status, Data: &data})
		if err != nil {
			if status != "passed" {
				t.Fatalf("status %q: %v", status, err)
			}
			return
		}
		if status == "passed" {
			if resp.DriverFailed || string(resp.Raw) != data {
				t.Fatalf("passed result: failed %v, raw %q", resp.DriverFailed, resp.Raw)
			}
			return
		}
		if !utf8.ValidString(data) {
			return // a lifted tool-result's strings are UTF-8 (the host checks them)
		}
		line, err := replay.Line(resp.Raw, "ab")
		if err != nil {
			t.Fatalf("failed turn does not record: %v", err)
		}
		turn, err := replay.ParseLine(line)
		if err != nil || !turn.Response.DriverFailed || turn.Response.Error != data {
			t.Fatalf("failed turn replays as %+v, %v; want the failure %q", turn.Response, err, data)
		}
	})
}
