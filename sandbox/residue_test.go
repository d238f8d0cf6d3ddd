package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunLeavesNoResidue: calls of one engine reuse linear memories (the
// engine's pool), so each call must start on memory as zero as a fresh
// mapping. The residue guest counts the non-zero bytes of 4 MiB it takes
// from freshly grown memory, then fills them with 0xAA: every call, the
// ones after the first included, must find none.
func TestRunLeavesNoResidue(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{MemoryLimitBytes: 64 << 20})
	m := compileGuest(t, e, "residue")
	for i := range 4 {
		out, err := e.Run(context.Background(), m, Call{Deadline: time.Minute})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := strings.TrimSpace(string(out.Stdout)); got != "dirty 0" {
			t.Fatalf("call %d found what an earlier call left: %q", i, got)
		}
	}
	if e.pool.Idle() == 0 {
		t.Fatal("no memory went back to the engine's pool: the test reused nothing")
	}
}
