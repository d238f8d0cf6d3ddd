package capsule

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// §4.2: store metadata, with murmur's fallback and defaults.
func TestReadMeta(t *testing.T) {
	store := t.TempDir()
	put := func(name, version, body string) {
		p := MetaPath(store, name, version)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	desc := "Runs commands."
	put("full", "1.0.0", `{"meta": {"name": "other", "version": "9", "runtime": "native", "artifact_runtime": "tool",
		"platforms": [["linux", "x86_64"]], "description": "Runs commands.", "tags": ["x"]}}`)
	put("sparse", "2.0.0", `{"meta": {"runtime": "static", "artifact_runtime": "skill"}}`)
	put("broken", "1.0.0", `{"meta": [`)
	tests := []struct {
		name, version string
		want          *Meta
		code          string
	}{
		{"full", "1.0.0", &Meta{Name: "full", Version: "1.0.0", Runtime: ExecutionNative, ArtifactRuntime: "tool",
			Platforms: [][]string{{"linux", "x86_64"}}, Description: &desc, Tags: []string{"x"}}, ""},
		{"sparse", "2.0.0", &Meta{Name: "sparse", Version: "2.0.0", Runtime: ExecutionStatic, ArtifactRuntime: "skill",
			Platforms: [][]string{}, Tags: []string{}}, ""},
		{"missing", "1.0.0", &Meta{Name: "missing", Version: "1.0.0", Runtime: ExecutionWasm, Platforms: [][]string{}, Tags: []string{}}, ""},
		{"broken", "1.0.0", nil, errcode.IO},
		{"..", "1.0.0", nil, errcode.IO},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadMeta(store, tt.name, tt.version)
			if code := errcode.Code(err); code != tt.code {
				t.Fatalf("code = %q, want %q (error: %v)", code, tt.code, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("meta mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// What Publish writes, ReadMeta reads back.
func TestPublishedMetaReadsBack(t *testing.T) {
	store := t.TempDir()
	am := &ArtifactManifest{Name: "guide", Version: "1.0.0", Runtime: "skill", Implementation: "wasm", Tags: []string{"docs"}}
	if _, err := Publish(store, []byte("zip"), am); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMeta(store, "guide", "1.0.0")
	want := &Meta{Name: "guide", Version: "1.0.0", Runtime: ExecutionStatic, ArtifactRuntime: "skill", Platforms: [][]string{}, Tags: []string{"docs"}}
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("ReadMeta = %+v, %v; want %+v", got, err, want)
	}
}
