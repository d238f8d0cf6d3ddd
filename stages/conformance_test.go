// Package stages_test holds the conformance test every stage passes.
package stages_test

import (
	"context"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/report"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// TestStageConformance: every stage of the table has its documented name,
// under a declaration of that name, and run on a case whose earlier
// stages did not run it returns a coded error (or, for Report, nothing to
// do) rather than panicking, from many goroutines at once.
func TestStageConformance(t *testing.T) {
	src, err := replay.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tb, err := stages.New(stages.Options{CapsuleDir: t.TempDir(), RunDir: t.TempDir(), Models: src})
	t.Cleanup(func() { _ = tb.Close() })
	if err != nil {
		t.Fatal(err)
	}
	consts := []string{resolve.Name, verify.Name, staging.Name, contain.Name, launch.Name, loop.Name, report.Name}
	want := []string{"resolve", "verify", "stage", "contain", "launch", "loop", "report"}
	nodes := tb.Graph.Nodes()
	if len(nodes) != len(want) {
		t.Fatalf("%d stages, want %d", len(nodes), len(want))
	}
	for i, n := range nodes {
		if got := n.Stage.Name(); got != n.Name || got != consts[i] || got != want[i] {
			t.Errorf("stage %d: Name() = %q, declared %q, const %q, want %q", i, got, n.Name, consts[i], want[i])
		}
		wantErr := !n.RunDespiteFailure
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				err := n.Stage.Run(context.Background(), &pipeline.Case{})
				if wantErr && errcode.Code(err) == "" {
					t.Errorf("%s on an empty case: %v, want a coded error", n.Name, err)
				}
				if !wantErr && err != nil {
					t.Errorf("%s on an empty case: %v, want nil", n.Name, err)
				}
			})
		}
		wg.Wait()
	}
}
