package hooks

import (
	"context"
	"sync"
	"testing"
)

// TestHammerDispatchers: cases run in parallel, each with its own
// dispatcher whose async worker runs beside the case's blocking calls, all
// on one engine and one compiled module (run with -race).
func TestHammerDispatchers(t *testing.T) {
	if testing.Short() {
		t.Skip("about 60 hook instances: skipped under -short")
	}
	s := testSet(t, Options{}, hookSpec{name: "none"}, hookSpec{name: "echo-env", manifest: "execution_mode: async\n", scope: "async"})
	var wg sync.WaitGroup
	ds := make([]*Dispatcher, 4)
	dirs := make([]string, 4)
	for i := range ds {
		ds[i], dirs[i] = openCase(t, s)
	}
	for _, d := range ds {
		wg.Go(func() {
			ctx := context.Background()
			for turn := range 3 {
				_ = d.Inference(ctx, Inference{Turn: turn, Decision: "tool_call"})
				_ = d.ToolCall(ctx, ToolCall{Turn: turn, ToolName: "calc", Status: "ok"})
			}
			d.SessionEnd(ctx, "ok")
		})
	}
	wg.Wait()
	for i, d := range ds {
		if f := d.TakeFaults(); len(f) != 0 {
			t.Errorf("case %d: faults %v", i, f)
		}
		// 6 events and on-session-end, in order, every one delivered.
		got := echoed(t, dirs[i]+"/async")
		if len(got) != 7 || got[0].Event != OnInference || got[1].Event != OnToolCall || got[6].Event != OnSessionEnd {
			t.Errorf("case %d: async hook saw %d events", i, len(got))
		}
	}
}
