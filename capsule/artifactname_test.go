package capsule

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestArtifactNamesAreOnePathElement is the lower finding of issue 13: a
// local skill named ../../x was installed outside the session. Every name
// that is not one ordinary path element is E-MAN-003 at its position.
func TestArtifactNamesAreOnePathElement(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"notes", true},
		{"my-skill_2.v1", true},
		{"..notes", true}, // starts with dots, still one element
		{"../x", false},
		{"../../x", false},
		{"a/b", false},
		{"/etc", false},
		{`a\b`, false},
		{`..\x`, false},
		{".", false},
		{"..", false},
		{"a\x00b", false},
		{"", false}, // blank: murmur's "missing required field 'name'"
	}
	for _, tt := range tests {
		for _, runtime := range []string{"skill", "tool"} {
			t.Run(runtime+"/"+strconv.Quote(tt.name), func(t *testing.T) {
				src := "name: d\nversion: '1'\nartifacts:\n  - name: " + strconv.Quote(tt.name) + "\n    runtime: " + runtime + "\n    version: '1'\n"
				if runtime == "skill" {
					src += "    source: ./skill.md\n"
				}
				m, err := parseYAML(t, src)
				if tt.ok {
					if err != nil || m.Artifacts[0].Name != tt.name {
						t.Fatalf("ParseManifest = %v, want %q accepted", err, tt.name)
					}
					return
				}
				if got := errcode.Code(err); got != errcode.ManifestInvalid {
					t.Fatalf("code = %q, want %s (error: %v)", got, errcode.ManifestInvalid, err)
				}
				if got := whereOf(asError(err)); got != "murmur.yaml:4:11" {
					t.Errorf("where = %q, want the name's position murmur.yaml:4:11", got)
				}
			})
		}
	}
}

// TestLocalSkillNamedOutsideIsNeverRead: the manifest of the finding, on
// disk, fails to load before any skill is read or staged.
func TestLocalSkillNamedOutsideIsNeverRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "skill.md"), []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "name: d\nversion: '1'\nartifacts:\n  - {name: ../../x, runtime: skill, source: ./skill.md}\n"
	_, err := ParseManifest(filepath.Join(dir, "murmur.yaml"), []byte(src), nil)
	if !errcode.Is(err, errcode.ManifestInvalid) {
		t.Fatalf("ParseManifest = %v, want %s", err, errcode.ManifestInvalid)
	}
}
