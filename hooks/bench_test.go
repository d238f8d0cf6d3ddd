package hooks

import (
	"context"
	"testing"
)

// BenchmarkBlockingHookCall is the cost of one blocking hook event: a
// fresh instance of a Go-built hook, the event on stdin, "none" back.
func BenchmarkBlockingHookCall(b *testing.B) {
	s := testSetB(b, hookSpec{name: "none"})
	d := s.Open(Case{SessionDir: b.TempDir(), CaseID: "c"}, nil)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if err := d.ToolCall(ctx, ToolCall{ToolName: "calc", Status: "ok"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNoHooks is the cost of an event in a capsule without hooks.
func BenchmarkNoHooks(b *testing.B) {
	var d *Dispatcher
	ctx := context.Background()
	for b.Loop() {
		_ = d.ToolCall(ctx, ToolCall{ToolName: "calc", Status: "ok"})
	}
}
