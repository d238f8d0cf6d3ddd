package launch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/internal/hooktest"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/session"
)

type inventoryOnly []inference.Tool

func (t inventoryOnly) Inventory() []inference.Tool { return t }
func (inventoryOnly) Call(context.Context, string, json.RawMessage) (session.ToolReply, error) {
	return session.ToolReply{}, nil
}

// TestOnStageRewritesManifests: an on-stage hook's write-manifests
// replaces the session's tools/<bin>/murmur.yaml (not the run's shared
// copy it was linked to) and the case's inventory follows it.
func TestOnStageRewritesManifests(t *testing.T) {
	e := hooktest.Engine(t)
	set, err := hooks.Load(e, []hooks.Spec{{Name: "shell-desc", Version: "1", Module: hooktest.Module(t),
		Manifest: []byte("binding: on-stage\ncommit_policy: write-manifests\n")}}, hooks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sesDir, shared := t.TempDir(), filepath.Join(t.TempDir(), "murmur.yaml")
	if err := os.WriteFile(shared, []byte("name: git\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"logs", "tools/git"} {
		if err := os.MkdirAll(filepath.Join(sesDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(shared, filepath.Join(sesDir, "tools", "git", "murmur.yaml")); err != nil {
		t.Fatal(err)
	}
	m, err := capsule.ParseManifest("murmur.yaml", []byte("name: c\nversion: '1'\ncapabilities: {shell: {allow: [git]}}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &pipeline.Case{SessionDir: sesDir}
	ses := &session.Session{
		Tools: inventoryOnly{{Name: "git", Parameters: json.RawMessage(`{}`), Description: "staged"}},
		Hooks: set.Open(hooks.Case{SessionDir: sesDir, CaseID: "c"}, nil),
	}
	if err := (&Stage{}).stageHooks(context.Background(), c, ses, m); err != nil {
		t.Fatal(err)
	}
	inv := ses.Tools.Inventory()
	if len(inv) != 1 || inv[0].Description != "Runs git (described by a hook)" ||
		string(inv[0].Parameters) != `{"properties":{"command":{"type":"string"}},"required":["command"],"type":"object"}` {
		t.Errorf("inventory = %+v / %s", inv, inv[0].Parameters)
	}
	if b, _ := os.ReadFile(shared); string(b) != "name: git\n" {
		t.Errorf("the run's shared manifest was written through the link: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(sesDir, "tools", "git", "murmur.yaml")); !strings.Contains(string(b), "described by a hook") {
		t.Errorf("sesDir manifest = %q", b)
	}
}
