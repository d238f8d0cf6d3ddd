package process

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// BenchmarkBridgeToolsCall is one tools/call round trip over loopback
// HTTP with a dispatch that does nothing: the bridge's own cost per call.
func BenchmarkBridgeToolsCall(b *testing.B) {
	br, err := StartBridge([]inference.Tool{{Name: "nop"}}, func(string, json.RawMessage) (string, bool) { return "ok", false })
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	auth := "Bearer " + br.Token()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nop","arguments":{"x":1}}}`
	b.ResetTimer()
	for b.Loop() {
		if status, _, _ := post(b, br.URL(), auth, body); status != 200 {
			b.Fatalf("status %d", status)
		}
	}
}

// BenchmarkRunEndTurn is one whole run of the fake CLI (murmur's
// two-line end_turn): spawn, stdin, two events, exit, group kill.
func BenchmarkRunEndTurn(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		_, err := Run(context.Background(), Command{Path: fakeClaude, Dir: dir, Stdin: UserLine("scenario end_turn")},
			NewParser(), func(Event) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
}
