package launch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestSystemPromptSources(t *testing.T) {
	project, session := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "prompt.md"), []byte("from a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(session, "tools", "guide")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "skill.md"), []byte("from a skill"), 0o644); err != nil {
		t.Fatal(err)
	}
	const head = "name: qs\nversion: \"1\"\nartifacts: [{name: guide, runtime: skill, version: \"1\"}]\ninference: {endpoint: \"https://x.example\", model: m, driver: {artifact: d}"
	tests := []struct {
		name, inference, want, code string
	}{
		{"none", "}", "", ""},
		{"text", ", system_prompt: \"  be brief  \"}", "be brief", ""},
		{"file", ", system_prompt_file: prompt.md}", "from a file", ""},
		{"missing file", ", system_prompt_file: nope.md}", "", errcode.RunSystemPrompt},
		{"artifact", ", system_prompt_artifact: guide}", "from a skill", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := capsule.ParseManifest(filepath.Join(project, "murmur.yaml"), []byte(head+tt.inference+"\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := systemPrompt(m, session)
			if errcode.Code(err) != tt.code || got != tt.want {
				t.Errorf("systemPrompt = %q, %v; want %q, code %q", got, err, tt.want, tt.code)
			}
		})
	}
}
