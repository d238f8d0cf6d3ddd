// Package stages_test holds the conformance test every stage passes.
package stages_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/report"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// TestStageConformance: every stage has its documented name, and run on a
// case whose earlier stages did not run it returns a coded error (or, for
// Report, nothing to do) rather than panicking, from many goroutines at once.
func TestStageConformance(t *testing.T) {
	src, err := replay.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	stages := []struct {
		stage   pipeline.Stage
		name    string
		wantErr bool
	}{
		{resolve.New(resolve.Options{Dir: t.TempDir()}), resolve.Name, true},
		{verify.New(verify.Options{RunDir: t.TempDir()}), verify.Name, true},
		{staging.New(), staging.Name, true},
		{contain.New(nil), contain.Name, true},
		{launch.New(src, time.Now), launch.Name, true},
		{loop.Stage{}, loop.Name, true},
		{report.Stage{}, report.Name, false},
	}
	want := []string{"resolve", "verify", "stage", "contain", "launch", "loop", "report"}
	for i, s := range stages {
		if got := s.stage.Name(); got != s.name || got != want[i] {
			t.Errorf("stage %d: Name() = %q, const %q, want %q", i, got, s.name, want[i])
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				err := s.stage.Run(context.Background(), &pipeline.Case{})
				if s.wantErr && errcode.Code(err) == "" {
					t.Errorf("%s on an empty case: %v, want a coded error", s.name, err)
				}
				if !s.wantErr && err != nil {
					t.Errorf("%s on an empty case: %v, want nil", s.name, err)
				}
			})
		}
		wg.Wait()
	}
}
