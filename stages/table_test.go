package stages_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/stages"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/report"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// TestTableUsesEachStagesDeclaration: every node of the table is under
// its package's declaration (Report's with the requires of what the table
// wires it to read), in the natural order, with one live stage (Loop) and
// Report running despite failures.
func TestTableUsesEachStagesDeclaration(t *testing.T) {
	tb, err := stages.New(stages.Options{CapsuleDir: t.TempDir(), RunDir: t.TempDir()})
	t.Cleanup(func() { _ = tb.Close() })
	if err != nil {
		t.Fatal(err)
	}
	wantReport := report.Decl
	wantReport.Requires = []string{verify.Name, staging.Name, contain.Name, launch.Name, loop.Name}
	want := []pipeline.Decl{resolve.Decl, verify.Decl, staging.Decl, contain.Decl, launch.Decl, loop.Decl, wantReport}
	var got []pipeline.Decl
	for _, n := range tb.Graph.Nodes() {
		got = append(got, n.Decl)
	}
	opt := cmp.Comparer(func(a, b pipeline.Dep) bool {
		return (a == nil) == (b == nil) && (a == nil || a.Stage() == b.Stage() && a.Type() == b.Type())
	})
	if diff := cmp.Diff(want, got, opt); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	live := slices.IndexFunc(got, func(d pipeline.Decl) bool { return d.Live })
	if live < 0 || got[live].Name != loop.Name || !got[len(got)-1].RunDespiteFailure {
		t.Errorf("live stage at %d, last stage %+v", live, got[len(got)-1])
	}
	if tb.Verify == nil || tb.Graph.Names()[1] != verify.Name {
		t.Errorf("Verify %v, names %v", tb.Verify, tb.Graph.Names())
	}
}

// TestRuntimeClosesWhatItMade: the engines the Runtime made are closed by
// its Close (a module compiled after it fails), and a request after Close
// is refused.
func TestRuntimeClosesWhatItMade(t *testing.T) {
	ctx := context.Background()
	rt := stages.NewRuntime()
	e, err := rt.NewEngine(ctx, sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Compile(ctx, "m", []byte("\x00asm\x01\x00\x00\x00")); !errcode.Is(err, errcode.Internal) {
		t.Errorf("Compile on the runtime's engine after Close = %v, want the closed engine's %s", err, errcode.Internal)
	}
	if _, err := rt.NewEngine(ctx, sandbox.Config{}); !errcode.Is(err, errcode.Internal) {
		t.Errorf("NewEngine after Close = %v, want %s", err, errcode.Internal)
	}
	if err := rt.Close(ctx); err != nil {
		t.Errorf("second Close = %v", err)
	}
}
