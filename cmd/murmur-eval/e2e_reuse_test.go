package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestReusedToolInstancesStartFresh: a component tool's instances are
// reset and reused from call to call and case to case (sandbox/component,
// reuse.go), and no call sees what another left. The tool (testdata
// stateful.wat of sandbox/component) answers with what an earlier call on
// its instance left in memory and in a mutable global, then keeps its own
// input there; every case here calls it twice with its own secret, on one
// worker, so every call but the first runs on an instance another call
// used. Each answer must be a fresh instance's.
func TestReusedToolInstancesStartFresh(t *testing.T) {
	dir := quickstart(t)
	packComponentTool(t, dir, "stateful", strings.ReplaceAll(ctoolManifest, "ctool", "stateful"), statefulComponent(t))
	editManifest(t, dir, "  - name: notes\n", "  - name: stateful\n    runtime: tool\n    version: 0.1.0\n  - name: notes\n")
	writeFile(t, dir+"/"+capsuleManifestFile, readFile(t, dir+"/"+capsuleManifestFile)+"\ntrace:\n  include_tool_output: true\n")
	var cases []scripted
	for i := range 6 {
		secret := func(n int) toolUse {
			return toolUse{"stateful", map[string]any{"op": fmt.Sprintf("case %d secret %d", i, n)}}
		}
		cases = append(cases, scripted{id: fmt.Sprintf("c%d", i), calls: []toolUse{secret(1), secret(2)}})
	}
	writeScripted(t, dir, cases)
	out, r := newFixture(t, dir).run("--workers", "1")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	fresh := "Afresh-instance!!" + strings.Repeat("\x00", 16)
	for _, c := range cases {
		calls := componentCalls(t, caseSession(t, out, c.id))
		if len(calls) != 2 {
			t.Fatalf("case %s: %d tool calls, want 2", c.id, len(calls))
		}
		for i, ev := range calls {
			if got, _ := ev["output"].(string); ev["status"] != "ok" || got != fresh {
				t.Errorf("case %s call %d: status %v output %q, want ok %q", c.id, i, ev["status"], got, fresh)
			}
		}
	}
}
