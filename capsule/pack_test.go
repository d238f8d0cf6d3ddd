package capsule

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// writeTree creates files (slash-separated names) under a new temp dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestPackPublishResolveRoundTrip(t *testing.T) {
	manifest := "name: echo\nversion: 0.2.0\nruntime: tool\ndescription: Echoes input.\nrequires_files: [echo.wasm, './docs/usage.md']\n"
	src := writeTree(t, map[string]string{
		"murmur.yaml":   manifest,
		"echo.wasm":     "\x00asm\x01\x00\x00\x00",
		"docs/usage.md": "usage",
		"ignored.txt":   "not packed",
	})
	packed, err := Pack(src)
	if err != nil {
		t.Fatalf("Pack: %v", err)
	}
	zipBytes, am := packed.Zip, packed.Manifest
	again, err := Pack(src)
	if err != nil || !bytes.Equal(zipBytes, again.Zip) {
		t.Fatalf("Pack is not deterministic (err %v)", err)
	}

	project := t.TempDir()
	zipPath, err := Publish(ProjectStore(project), zipBytes, am)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	// Publishing again overwrites in place.
	if _, err := Publish(ProjectStore(project), zipBytes, am); err != nil {
		t.Fatalf("Publish again: %v", err)
	}

	res, err := NewRegistry(project, "").Resolve("echo", "0.2.0", CurrentPlatform())
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if res.ZipPath != zipPath {
		t.Errorf("ZipPath = %q, want %q", res.ZipPath, zipPath)
	}
	stored, err := os.ReadFile(res.ZipPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify("echo", "0.2.0", stored, res.SidecarSHA256, SHA256Hex(zipBytes)); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	a, err := ReadArchive("echo", "0.2.0", stored, 0)
	if err != nil {
		t.Fatalf("ReadArchive: %v", err)
	}
	if diff := cmp.Diff([]string{"murmur.yaml", "echo.wasm", "docs/usage.md"}, a.Entries); diff != "" {
		t.Errorf("entries mismatch (-want +got):\n%s", diff)
	}
	if a.ManifestText != manifest || a.PayloadEntry != "echo.wasm" || string(a.Payload) != "\x00asm\x01\x00\x00\x00" {
		t.Errorf("archive = %q, %q, %q", a.ManifestText, a.PayloadEntry, a.Payload)
	}

	sidecar, err := os.ReadFile(filepath.Join(filepath.Dir(zipPath), "echo-0.2.0.sha256"))
	if err != nil || string(sidecar) != SHA256Hex(zipBytes)+"\n" {
		t.Errorf("sidecar = %q, %v", sidecar, err)
	}
	metaBytes, err := os.ReadFile(filepath.Join(filepath.Dir(zipPath), "echo-0.2.0.meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]map[string]any
	if err := json.Unmarshal(metaBytes, &meta); err != nil {
		t.Fatalf("meta.json: %v", err)
	}
	wantMeta := map[string]map[string]any{"meta": {
		"name": "echo", "version": "0.2.0", "runtime": "wasm", "artifact_runtime": "tool",
		"platforms": []any{}, "description": "Echoes input.", "tags": []any{},
	}}
	if diff := cmp.Diff(wantMeta, meta); diff != "" {
		t.Errorf("meta mismatch (-want +got):\n%s", diff)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(zipPath), ".*.tmp"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %q", leftovers)
	}
}

func TestPackErrors(t *testing.T) {
	const head = "name: echo\nversion: 0.1.0\nruntime: tool\n"
	tests := []struct {
		name  string
		files map[string]string
		code  string
	}{
		{"no manifest", map[string]string{"a.wasm": "x"}, errcode.IONotFound},
		{"bad manifest", map[string]string{"murmur.yaml": "name: echo\n"}, errcode.ManifestMissingField},
		{"bad name", map[string]string{"murmur.yaml": "name: Echo_1\nversion: '1'\nruntime: tool\nrequires_files: [a.wasm]\n", "a.wasm": "x"}, errcode.BuildName},
		{"missing file", map[string]string{"murmur.yaml": head + "requires_files: [a.wasm]\n"}, errcode.IO},
		{"dot-dot", map[string]string{"murmur.yaml": head + "requires_files: [../a.wasm]\n"}, errcode.BuildFiles},
		{"absolute", map[string]string{"murmur.yaml": head + "requires_files: [/etc/passwd]\n"}, errcode.BuildFiles},
		{"same archive name", map[string]string{"murmur.yaml": head + "requires_files: [a.wasm, './a.wasm']\n", "a.wasm": "x"}, errcode.BuildFiles},
		{"directory", map[string]string{"murmur.yaml": head + "requires_files: [lib, a.wasm]\n", "lib/x": "x", "a.wasm": "x"}, errcode.BuildFiles},
		{"no root wasm", map[string]string{"murmur.yaml": head + "requires_files: [lib/a.wasm]\n", "lib/a.wasm": "x"}, errcode.BuildPayload},
		{"two root wasm", map[string]string{"murmur.yaml": head + "requires_files: [a.wasm, b.wasm]\n", "a.wasm": "x", "b.wasm": "y"}, errcode.BuildPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Pack(writeTree(t, tt.files))
			if got := errcode.Code(err); got != tt.code {
				t.Errorf("code = %q, want %q (error: %v)", got, tt.code, err)
			}
		})
	}

	dir := writeTree(t, map[string]string{"murmur.yaml": head + "requires_files: [link.wasm]\n", "real.wasm": "x"})
	if err := os.Symlink("real.wasm", filepath.Join(dir, "link.wasm")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if _, err := Pack(dir); errcode.Code(err) != errcode.BuildFiles {
		t.Errorf("symlink: code = %q, want %q (error: %v)", errcode.Code(err), errcode.BuildFiles, err)
	}
}

func TestPackSkillAndPublishReserved(t *testing.T) {
	dir := writeTree(t, map[string]string{"murmur.yaml": "name: guide\nversion: latest\nruntime: skill\n", "skill.md": "# Guide"})
	packed, err := Pack(dir)
	if err != nil {
		t.Fatalf("Pack: %v", err)
	}
	zipBytes, am := packed.Zip, packed.Manifest
	a, err := ReadArchive("guide", "latest", zipBytes, 0)
	if err != nil || string(a.Payload) != "# Guide" {
		t.Fatalf("ReadArchive = %+v, %v", a, err)
	}
	if _, err := Publish(t.TempDir(), zipBytes, am); errcode.Code(err) != errcode.RegistryReserved {
		t.Errorf("reserved version: code = %q, want %q (error: %v)", errcode.Code(err), errcode.RegistryReserved, err)
	}
}
