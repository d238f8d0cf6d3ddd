package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// artifactDir writes an artifact folder: murmur.yaml and its files.
func artifactDir(t *testing.T, manifest string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["murmur.yaml"] = manifest
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

func TestPackOutputFile(t *testing.T) {
	src := artifactDir(t, "name: echo\nversion: 0.2.0\nruntime: tool\nrequires_files: [echo.wasm, Cargo.toml]\n",
		map[string]string{"echo.wasm": "\x00asm", "Cargo.toml": "[package]"})
	out := filepath.Join(t.TempDir(), "dist", "echo-0.2.0.mur.zip")
	store := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := runPack([]string{src, "-o", out, "--store", store}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	zipBytes, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(filepath.Dir(out), "echo-0.2.0.sha256"))
	if err != nil || strings.TrimSpace(string(sum)) != capsule.SHA256Hex(zipBytes) {
		t.Errorf("sidecar = %q, %v", sum, err)
	}
	if _, err := capsule.ReadArchive("echo", "0.2.0", zipBytes, 0); err != nil {
		t.Errorf("ReadArchive: %v", err)
	}
	stored, err := os.ReadFile(filepath.Join(store, "echo", "0.2.0", "echo-0.2.0.mur.zip"))
	if err != nil || !bytes.Equal(stored, zipBytes) {
		t.Errorf("store copy differs from -o (err %v)", err)
	}
	if !strings.Contains(stderr.String(), "warning[W-BLD-003]") {
		t.Errorf("stderr lacks the Cargo.toml lint:\n%s", stderr.String())
	}
}

func TestPackRefusals(t *testing.T) {
	good := artifactDir(t, "name: echo\nversion: 0.2.0\nruntime: tool\nrequires_files: [echo.wasm]\n", map[string]string{"echo.wasm": "x"})
	badName := artifactDir(t, "name: Echo\nversion: 0.2.0\nruntime: tool\nrequires_files: [echo.wasm]\n", map[string]string{"echo.wasm": "x"})
	noWasm := artifactDir(t, "name: echo\nversion: 0.2.0\nruntime: tool\n", map[string]string{})
	out := filepath.Join(t.TempDir(), "echo.mur.zip")
	tests := []struct {
		name string
		args []string
		code string
	}{
		{"nothing to pack", []string{"-o", out}, errcode.Usage},
		{"nowhere to put it", []string{good}, errcode.Usage},
		{"one output, two folders", []string{good, good, "-o", out}, errcode.Usage},
		{"output suffix", []string{good, "-o", filepath.Join(t.TempDir(), "echo.zip")}, errcode.IO},
		{"artifact name", []string{badName, "-o", out}, errcode.BuildName},
		{"no root wasm", []string{noWasm, "-o", out}, errcode.BuildPayload},
		{"missing folder", []string{filepath.Join(t.TempDir(), "nope"), "-o", out}, errcode.IONotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := runPack(tt.args, &stdout, &stderr); code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.HasPrefix(stderr.String(), "error["+tt.code+"]") {
				t.Errorf("stderr = %q, want error[%s]", stderr.String(), tt.code)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused pack wrote %s", out)
	}
}
