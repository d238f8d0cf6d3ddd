package capsule

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// §1.3: local-source resolution and its refusals.
func TestReadLocalSkill(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"skills/a/Skill.MD":     "A",
		"skills/a/skill.md~":    "backup",
		"skills/file.md":        "F",
		"skills/empty/README":   "no skill here",
		"skills/dir/skill.md/x": "a folder named skill.md",
	})
	tests := []struct {
		name, source, want, code string
	}{
		{"folder, name matched case-insensitively", "skills/a", "A", ""},
		{"file read as it is", "./skills/file.md", "F", ""},
		{"absolute path", filepath.Join(dir, "skills", "file.md"), "F", ""},
		{"missing path", "skills/nope", "", errcode.IONotFound},
		{"folder without skill.md", "skills/empty", "", errcode.IONotFound},
		{"skill.md is a folder", "skills/dir", "", errcode.IO},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ArtifactDecl{Name: "s", Version: "local", Runtime: RuntimeSkill, Source: tt.source, LocalSource: true, where: "murmur.yaml:5:5"}
			got, err := ReadLocalSkill(dir, a)
			if code := errcode.Code(err); code != tt.code {
				t.Fatalf("code = %q, want %q (error: %v)", code, tt.code, err)
			}
			if err != nil {
				if w := whereOf(asError(err)); w != "murmur.yaml:5:5" {
					t.Errorf("where = %q, want the manifest entry", w)
				}
				return
			}
			if string(got.Text) != tt.want || got.Name != "s" {
				t.Errorf("skill = %+v, want text %q", got, tt.want)
			}
		})
	}
}

func TestReadLocalSkillsSkipsRegistryArtifacts(t *testing.T) {
	dir := writeTree(t, map[string]string{"s.md": "S"})
	m := &Manifest{Dir: dir, Artifacts: []ArtifactDecl{{Name: "reg", Version: "1"}, {Name: "s", Source: "s.md", LocalSource: true}}}
	skills, err := ReadLocalSkills(m)
	if err != nil || len(skills) != 1 || skills[0].Name != "s" {
		t.Errorf("ReadLocalSkills = %+v, %v", skills, err)
	}
	if err := os.Remove(filepath.Join(dir, "s.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLocalSkills(m); errcode.Code(err) != errcode.IONotFound {
		t.Errorf("code = %q, want %q", errcode.Code(err), errcode.IONotFound)
	}
}
