package capsule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// §3.2: `murmur-eval pack -o` writes the archive and its sidecar, and the
// store reads them back like any other.
func TestWriteArchive(t *testing.T) {
	src := writeTree(t, map[string]string{
		"murmur.yaml": "name: echo\nversion: 0.2.0\nruntime: tool\nrequires_files: [echo.wasm, echo-0.2.0.mur.zip]\n",
		"echo.wasm":   "\x00asm",
	})
	out := filepath.Join(src, "echo-0.2.0.mur.zip")
	if err := os.WriteFile(out, []byte("an old build"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Pack(src, out)
	if err != nil {
		t.Fatalf("Pack: %v", err)
	}
	sidecar, err := WriteArchive(p, out)
	if err != nil {
		t.Fatalf("WriteArchive: %v", err)
	}
	if sidecar != filepath.Join(src, "echo-0.2.0.sha256") {
		t.Errorf("sidecar = %q", sidecar)
	}
	zipBytes, _ := os.ReadFile(out)
	sum, _ := os.ReadFile(sidecar)
	if err := Verify("echo", "0.2.0", zipBytes, strings.TrimSpace(string(sum)), ""); err != nil {
		t.Errorf("sidecar does not match the archive: %v", err)
	}
	a, err := ReadArchive("echo", "0.2.0", zipBytes, 0)
	if err != nil {
		t.Fatalf("ReadArchive: %v", err)
	}
	// The output file itself is never packed.
	if diff := cmp.Diff([]string{"murmur.yaml", "echo.wasm"}, a.Entries); diff != "" {
		t.Errorf("entries mismatch (-want +got):\n%s", diff)
	}

	for _, bad := range []string{filepath.Join(src, "echo.zip"), filepath.Join(src, ".mur.zip")} {
		if _, err := WriteArchive(p, bad); errcode.Code(err) != errcode.IO {
			t.Errorf("output %q: code = %q, want %q", bad, errcode.Code(err), errcode.IO)
		}
	}
}

// §3.2: mur build's lints are warnings, not errors.
func TestPackLints(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // warning codes
	}{
		{"clean", map[string]string{"murmur.yaml": "name: a\nversion: '1'\nruntime: tool\nrequires_files: [a.wasm]\n", "a.wasm": "x"}, nil},
		{"manifest listed", map[string]string{"murmur.yaml": "name: a\nversion: '1'\nruntime: tool\nrequires_files: [murmur.yaml, a.wasm]\n", "a.wasm": "x"},
			[]string{"W-BLD-001"}},
		{"capsule.wasm shadows", map[string]string{"murmur.yaml": "name: a\nversion: '1'\nruntime: tool\nrequires_files: [a.wasm, capsule.wasm]\n", "a.wasm": "x", "capsule.wasm": "y"},
			[]string{"W-BLD-002"}},
		{"rust sources", map[string]string{"murmur.yaml": "name: a\nversion: '1'\nruntime: tool\nrequires_files: [a.wasm, Cargo.toml, src/lib.rs, target/x]\n",
			"a.wasm": "x", "Cargo.toml": "", "src/lib.rs": "", "target/x": ""}, []string{"W-BLD-003", "W-BLD-003", "W-BLD-003"}},
		{"rust sources in a skill are fine", map[string]string{"murmur.yaml": "name: a\nversion: '1'\nruntime: skill\nrequires_files: [skill.md, ex.rs]\n",
			"skill.md": "s", "ex.rs": ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Pack(writeTree(t, tt.files))
			if err != nil {
				t.Fatalf("Pack: %v", err)
			}
			var got []string
			for _, w := range p.Warnings {
				got = append(got, w[:strings.Index(w, ":")])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("warnings mismatch (-want +got):\n%s\n%q", diff, p.Warnings)
			}
		})
	}
}
