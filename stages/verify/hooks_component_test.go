package verify

import (
	"archive/zip"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// hookArtifactWith is a hook artifact whose .wasm is payload.
func hookArtifactWith(t *testing.T, name, extra string, payload []byte) Artifact {
	t.Helper()
	yaml := "name: " + name + "\nversion: 1.0.0\nruntime: hook\n" + extra
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range [][2]string{{capsule.ManifestFile, yaml}, {name + ".wasm", string(payload)}} {
		w, err := zw.Create(e[0])
		if err == nil {
			_, err = w.Write([]byte(e[1]))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	ar, err := capsule.ReadArchive(name, "1.0.0", buf.Bytes(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return Artifact{Pinned: capsule.Pinned{Name: name, Version: "1.0.0", Runtime: capsule.RuntimeHook}, Archive: ar}
}

// TestComponentHooksAreCompiled: a hook whose .wasm is a component is
// compiled for murmur's hook world beside a preview-1 hook; a component
// that is not a hook (an empty one, a tool) fails Verify with E-RUN-001
// naming the hook and what it lacks.
func TestComponentHooksAreCompiled(t *testing.T) {
	hook := componenttest.Fixture(t, "hook")
	tool := componenttest.Fixture(t, "tool")
	m, err := capsule.ParseManifest("murmur.yaml", []byte("name: c\nversion: '1'\nartifacts:\n"+
		"  - {name: counter, version: 1.0.0, runtime: hook}\n  - {name: judge, version: 1.0.0, runtime: hook}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ts, err := prepare(ctx, m, []Artifact{hookArtifactWith(t, "counter", "", hook), hookArtifact(t, "judge", "")}, newTestEngine, false)
	if ts != nil && ts.Engine != nil {
		defer ts.Engine.Close(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	hs := ts.Hooks.Hooks()
	if len(hs) != 2 || hs[0].Component == nil || hs[0].Module != nil || hs[1].Module == nil || hs[1].Component != nil {
		t.Fatalf("hooks = %+v", hs)
	}
	for _, tc := range []struct {
		name    string
		payload []byte
		reason  string
	}{
		{"empty component", []byte("\x00asm\x0d\x00\x01\x00"), "does not export murmur:hook/lifecycle@0.5.0"},
		{"tool component", tool, "import murmur:text/chunks@0.1.0 is not part of murmur's hook world"},
	} {
		ts, err := prepare(ctx, m, []Artifact{hookArtifactWith(t, "counter", "", tc.payload)}, newTestEngine, false)
		if ts != nil && ts.Engine != nil {
			defer ts.Engine.Close(ctx)
		}
		if !errcode.Is(err, errcode.RunCapsule) || !strings.Contains(err.Error(), "hook 'counter'") || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: prepare = %v, want E-RUN-001 naming the hook: %s", tc.name, err, tc.reason)
		}
	}
}
