package capsule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestArtifactNamesDidYouMean: an artifact name the manifest refers to
// that names nothing keeps its code, and its hint starts with the closest
// name that exists: installed in a store, pinned in the lock, or declared
// in artifacts: (issue 39, finding 9).
func TestArtifactNamesDidYouMean(t *testing.T) {
	store := t.TempDir()
	for _, nv := range [][2]string{{"calc", "0.1.0"}, {"notes", "0.1.0"}, {"notes", "0.2.0"}} {
		dir := filepath.Join(store, nv[0], nv[1])
		base := filepath.Join(dir, nv[0]+"-"+nv[1])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range [][2]string{{base + ".mur.zip", "zip"}, {base + ".sha256", strings.Repeat("a", 64)}} {
			if err := os.WriteFile(f[0], []byte(f[1]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	reg := &Registry{Stores: []string{filepath.Join(t.TempDir(), "empty"), store}}
	manifest := func(t *testing.T, artifacts, inference string) (*Manifest, error) {
		t.Helper()
		return ParseManifest("murmur.yaml", []byte("name: c\nversion: 0.1.0\nartifacts:\n"+artifacts+inference), nil)
	}
	tool := func(name, version string) string {
		return "  - name: " + name + "\n    version: " + version + "\n    runtime: tool\n"
	}
	lock, err := ParseLock("murmur.lock", []byte("lock_version: 1\nartifacts:\n  - name: calc\n    resolved_version: 0.1.0\n    sha256:\n      wasm: "+strings.Repeat("a", 64)+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	const driver = "  - name: murmur-driver-anthropic\n    version: 0.2.0\n    runtime: driver\n"
	inference := func(key, name string) string {
		return "inference:\n  endpoint: https://api.anthropic.com\n  model: m\n  " + key + name + "\n"
	}
	tests := []struct {
		name      string
		get       func(t *testing.T) error
		code      string
		hintStart string
	}{
		{"a declared tool no store has", func(t *testing.T) error {
			m, err := manifest(t, tool("calk", "0.1.0"), "")
			if err != nil {
				return err
			}
			_, err = ResolveAll(m, nil, reg, "")
			return err
		}, errcode.RegistryNotFound, `did you mean "calc" (installed)? Else run `},
		{"a version no store has", func(t *testing.T) error {
			m, err := manifest(t, tool("notes", "0.3.0"), "")
			if err != nil {
				return err
			}
			_, err = ResolveAll(m, nil, reg, "")
			return err
		}, errcode.RegistryNotFound, "installed versions of notes: 0.1.0, 0.2.0; pin one in artifacts:, or install notes@0.3.0. Else run "},
		{"nothing close installed", func(t *testing.T) error {
			m, err := manifest(t, tool("weather", "1.0.0"), "")
			if err != nil {
				return err
			}
			_, err = ResolveAll(m, nil, reg, "")
			return err
		}, errcode.RegistryNotFound, "run `mur install`"},
		{"a declared tool the lock does not pin", func(t *testing.T) error {
			m, err := manifest(t, tool("calk", "0.1.0"), "")
			if err != nil {
				return err
			}
			_, err = ResolveAll(m, lock, reg, "")
			return err
		}, errcode.RunLock, `did you mean "calc" (pinned in murmur.lock)? Else run `},
		{"driver.artifact naming no artifacts: entry", func(t *testing.T) error {
			m, err := manifest(t, driver, inference("driver:\n    artifact: ", "murmur-driver-antropic")+"capabilities:\n  network:\n    allow: [api.anthropic.com]\n")
			if err != nil {
				return err
			}
			if errs := m.MurmurInferenceRefusals(); len(errs) > 0 {
				return errs[0]
			}
			return nil
		}, errcode.RunDriverAbsent, `did you mean "murmur-driver-anthropic" (declared in artifacts:)? Else declare `},
		{"system_prompt_artifact naming no artifacts: entry", func(t *testing.T) error {
			_, err := manifest(t, driver+"  - name: prompt\n    version: 0.1.0\n    runtime: skill\n    prompt_payload: true\n",
				inference("driver:\n    artifact: ", "murmur-driver-anthropic")+"  system_prompt_artifact: promt\n")
			return err
		}, errcode.ManifestInvalid, `did you mean "prompt" (declared in artifacts:)?`},
	}
	for _, tc := range tests {
		err := tc.get(t)
		e, ok := err.(*errcode.Error)
		if !ok || e.Code != tc.code || !strings.HasPrefix(e.Hint, tc.hintStart) {
			t.Errorf("%s: %v, want %s with a hint starting %q", tc.name, errcode.Format(err), tc.code, tc.hintStart)
		}
	}
}
