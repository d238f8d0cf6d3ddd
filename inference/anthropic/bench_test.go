package anthropic

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// BenchmarkDecode: one tool-use turn, as a JSON answer and as the event
// stream the built-in provider now asks for.
func BenchmarkDecode(b *testing.B) {
	body := apitest.AnthropicMessage("tool_use", 400, 60, apitest.AnthropicText("Let me compute that for you with the calculator."),
		apitest.AnthropicToolUse("toolu_01A09q90qw90lq917835lq9", "calc", `{"expression":"(6*7)+1.50","precision":2}`))
	for _, bb := range []struct{ name, body string }{{"json", body}, {"stream", stream(body)}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.body)))
			for b.Loop() {
				if _, err := Decode([]byte(bb.body)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
