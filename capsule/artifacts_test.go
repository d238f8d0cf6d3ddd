package capsule

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

const artHead = "name: demo\nversion: 1.0.0\nartifacts:\n"

// §1.3: each artifact field's default and value.
func TestArtifactFields(t *testing.T) {
	emptyCaps := defaultCaps()
	limitCaps := defaultCaps()
	limitCaps.Limits.DeadlineSeconds, limitCaps.Limits.DeadlineDeclared = 7, true
	limitCaps.Declared = []string{"limits"}
	tests := []struct {
		name, entry string
		want        ArtifactDecl
	}{
		{"tool defaults", "{name: a, version: 1.0.0}",
			ArtifactDecl{Name: "a", Version: "1.0.0", Runtime: RuntimeTool, OnOverflow: OverflowDrop}},
		{"empty runtime is a tool", "{name: a, version: '1', runtime: }",
			ArtifactDecl{Name: "a", Version: "1", Runtime: RuntimeTool, OnOverflow: OverflowDrop}},
		{"skill defaults", "{name: s, version: '1', runtime: skill}",
			ArtifactDecl{Name: "s", Version: "1", Runtime: RuntimeSkill, LocalSource: true, PromptPayload: true, OnOverflow: OverflowDrop}},
		{"skill overrides both ways", "{name: s, version: '1', runtime: skill, local_source: false, prompt_payload: false}",
			ArtifactDecl{Name: "s", Version: "1", Runtime: RuntimeSkill, OnOverflow: OverflowDrop}},
		{"tool may opt in to a local source", "{name: t, runtime: tool, local_source: true, source: ./t.md}",
			ArtifactDecl{Name: "t", Version: "local", Runtime: RuntimeTool, Source: "./t.md", LocalSource: true, OnOverflow: OverflowDrop}},
		{"blank source is absent", "{name: t, version: '2', source: '  '}",
			ArtifactDecl{Name: "t", Version: "2", Runtime: RuntimeTool, OnOverflow: OverflowDrop}},
		{"driver", "{name: d, version: 0.3.33, runtime: driver}",
			ArtifactDecl{Name: "d", Version: "0.3.33", Runtime: RuntimeDriver, OnOverflow: OverflowDrop}},
		{"hook blocks on overflow", "{name: h, version: '1', runtime: hook, on_overflow: block}",
			ArtifactDecl{Name: "h", Version: "1", Runtime: RuntimeHook, OnOverflow: OverflowBlock}},
		{"hook drops explicitly", "{name: h, version: '1', runtime: hook, on_overflow: drop}",
			ArtifactDecl{Name: "h", Version: "1", Runtime: RuntimeHook, OnOverflow: OverflowDrop}},
		{"empty grant", "{name: t, version: '1', capabilities: {}}",
			ArtifactDecl{Name: "t", Version: "1", Runtime: RuntimeTool, OnOverflow: OverflowDrop, Capabilities: &emptyCaps}},
		{"null grant is absent", "{name: t, version: '1', capabilities: ~}",
			ArtifactDecl{Name: "t", Version: "1", Runtime: RuntimeTool, OnOverflow: OverflowDrop}},
		{"hook grant", "{name: h, version: '1', runtime: hook, capabilities: {limits: {deadline_seconds: 7}}}",
			ArtifactDecl{Name: "h", Version: "1", Runtime: RuntimeHook, OnOverflow: OverflowDrop, Capabilities: &limitCaps}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseYAML(t, artHead+"  - "+tt.entry+"\n")
			if err != nil {
				t.Fatalf("ParseManifest: %v", err)
			}
			if diff := cmp.Diff([]ArtifactDecl{tt.want}, m.Artifacts, manifestOpts); diff != "" {
				t.Errorf("artifact mismatch (-want +got):\n%s", diff)
			}
			if got := m.Artifacts[0].Where(); got != "murmur.yaml:4:5" {
				t.Errorf("Where() = %q, want murmur.yaml:4:5", got)
			}
		})
	}
}

// §1.3: every documented refusal, with its code and position.
func TestArtifactErrors(t *testing.T) {
	tests := []struct {
		name, entry, code string
		at                string // the text the error points at: line 4, this column
	}{
		{"entry is null", "~", errcode.ManifestSyntax, "~"},
		{"entry is a list", "[a]", errcode.ManifestSyntax, "[a]"},
		{"missing name", "{version: '1'}", errcode.ManifestInvalid, "{"},
		{"blank name", "{name: ' ', version: '1'}", errcode.ManifestInvalid, "' '"},
		{"missing version", "{name: a}", errcode.ManifestInvalid, "{"},
		{"runtime wasm", "{name: a, version: '1', runtime: wasm}", errcode.ManifestInvalid, "wasm"},
		{"runtime native", "{name: a, version: '1', runtime: native}", errcode.ManifestInvalid, "native"},
		{"runtime unknown", "{name: a, version: '1', runtime: Tool}", errcode.ManifestInvalid, "Tool"},
		{"runtime is a map", "{name: a, version: '1', runtime: {x: 1}}", errcode.ManifestSyntax, "{x"},
		{"source without local_source", "{name: a, source: ./a}", errcode.ManifestInvalid, "./a"},
		{"skill source opted out", "{name: a, runtime: skill, local_source: false, source: ./a}", errcode.ManifestInvalid, "./a"},
		{"local_source is a string", "{name: a, version: '1', local_source: 'yes'}", errcode.ManifestSyntax, "'yes'"},
		{"prompt_payload is a number", "{name: a, version: '1', prompt_payload: 1}", errcode.ManifestSyntax, "1}"},
		{"grant on a skill", "{name: s, version: '1', runtime: skill, capabilities: {}}", errcode.ManifestInvalid, "{}"},
		{"grant is a list", "{name: t, version: '1', capabilities: [network]}", errcode.ManifestSyntax, "[network]"},
		{"grant with a zero limit", "{name: t, version: '1', capabilities: {limits: {instances: 0}}}", errcode.ManifestInvalid, "0}"},
		{"grant with an empty shell", "{name: t, version: '1', capabilities: {shell: {}}}", errcode.ManifestInvalid, "{}}"},
		{"grant with a bad containment", "{name: d, version: '1', runtime: driver, capabilities: {containment: tight}}", errcode.ManifestInvalid, "tight"},
		{"on_overflow on a tool", "{name: t, version: '1', on_overflow: drop}", errcode.ManifestInvalid, "drop"},
		{"on_overflow on a skill", "{name: s, version: '1', runtime: skill, on_overflow: block}", errcode.ManifestInvalid, "block"},
		{"on_overflow unknown", "{name: h, version: '1', runtime: hook, on_overflow: wait}", errcode.ManifestInvalid, "wait"},
		{"on_overflow is not trimmed", "{name: h, version: '1', runtime: hook, on_overflow: ' drop'}", errcode.ManifestInvalid, "' drop'"},
		{"on_overflow is a list", "{name: h, version: '1', runtime: hook, on_overflow: [drop]}", errcode.ManifestSyntax, "[drop]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseYAML(t, artHead+"  - "+tt.entry+"\n")
			if err == nil {
				t.Fatalf("ParseManifest = %+v, want error %s", m, tt.code)
			}
			if got := errcode.Code(err); got != tt.code {
				t.Errorf("code = %s, want %s (error: %v)", got, tt.code, err)
			}
			want := fmt.Sprintf("murmur.yaml:4:%d", 5+strings.Index(tt.entry, tt.at))
			if got := whereOf(asError(err)); got != want {
				t.Errorf("where = %q, want %q (error: %v)", got, want, err)
			}
		})
	}
}

// Artifacts are checked in order, and all of them before the capsule-wide
// capabilities, as murmur lowers them.
func TestArtifactErrorOrder(t *testing.T) {
	src := artHead + "  - {name: a}\n  - {version: '1'}\ncapabilities: {containment: nope}\n"
	_, err := parseYAML(t, src)
	if got := whereOf(asError(err)); got != "murmur.yaml:4:5" {
		t.Errorf("where = %q, want the first artifact (error: %v)", got, err)
	}
}
