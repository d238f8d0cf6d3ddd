package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// tinyCommand is the smallest WASI command module: an empty _start.
var tinyCommand = []byte{
	0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00,
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: func()
	0x03, 0x02, 0x01, 0x00, // one function of that type
	0x07, 0x0a, 0x01, 0x06, '_', 's', 't', 'a', 'r', 't', 0x00, 0x00, // export "_start"
	0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // its body: end
}

func hookArtifact(t *testing.T, name, extra string) Artifact {
	t.Helper()
	return hookArtifactWith(t, name, extra, tinyCommand)
}

// TestHooksAreCompiledNotStaged: a hook artifact joins the run's hook set
// with the operator's grant, never the tools or the inventory; a contract
// murmur refuses fails Verify with murmur's code and words.
func TestHooksAreCompiledNotStaged(t *testing.T) {
	m, err := capsule.ParseManifest("murmur.yaml", []byte("name: c\nversion: '1'\nartifacts:\n"+
		"  - {name: judge, version: 1.0.0, runtime: hook, capabilities: {filesystem: {scope: notes}}, on_overflow: block}\n"+
		"  - {name: watch, version: 1.0.0, runtime: hook}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	arts := []Artifact{
		hookArtifact(t, "judge", "binding: on-task-end\ncommit_policy: reopen-task\n"),
		hookArtifact(t, "watch", "execution_mode: async\n"),
	}
	ts, err := prepare(ctx, m, arts, newTestEngine, false)
	if ts != nil && ts.Engine != nil {
		defer ts.Engine.Close(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Tools) != 0 || len(ts.Inventory) != 0 {
		t.Errorf("hooks staged as tools: %v %v", ts.Tools, ts.Inventory)
	}
	hs := ts.Hooks.Hooks()
	if len(hs) != 2 || hs[0].Name != "judge" || hs[0].Scope != "notes" || hs[0].Overflow != capsule.OverflowBlock ||
		hs[0].Policy != "reopen-task" || hs[1].Name != "watch" || hs[1].Mode != "async" || hs[1].Scope != "" || hs[1].Overflow != capsule.OverflowDrop {
		t.Errorf("hooks = %+v %+v", hs[0], hs[1])
	}

	bad := []Artifact{hookArtifact(t, "judge", "binding: on-task-end\ncommit_policy: replace-context\n")}
	ts, err = prepare(ctx, m, bad, newTestEngine, false)
	if ts != nil && ts.Engine != nil {
		defer ts.Engine.Close(ctx)
	}
	if errcode.Code(err) != errcode.IO || !strings.Contains(err.Error(), "hook judge@1.0.0 invalid config: commit_policy 'replace-context' is not valid for binding 'on-task-end'") {
		t.Errorf("prepare = %v, want murmur's E-IO-003 invalid config", err)
	}
}

// newTestEngine makes an engine with the default configuration, for
// prepare (the test closes it, as the run's Runtime would).
func newTestEngine(ctx context.Context) (*sandbox.Engine, error) {
	return sandbox.NewEngine(ctx, sandbox.Config{})
}
