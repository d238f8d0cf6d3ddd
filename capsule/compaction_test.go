package capsule

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

const infPrefix = "name: d\nversion: '1'\ninference: "
const httpInf = "{endpoint: https://e, model: m, driver: {artifact: d}, "

// §1.5: inference.compaction under both transports.
func TestCompactionFields(t *testing.T) {
	tests := []struct {
		name, inference string
		want            *Compaction
	}{
		{"absent", httpInf + "max_turns: 3}", nil},
		{"null", httpInf + "compaction: ~}", nil},
		{"defaults", httpInf + "compaction: {}}", &Compaction{Threshold: 0.98, Model: "m"}},
		{"integer threshold", httpInf + "compaction: {threshold: 1}}", &Compaction{Threshold: 1, Model: "m"}},
		{"every field", httpInf + "compaction: {threshold: 0.5, model: ' small ', system_prompt: '  keep it  ', dump_summaries: true}}",
			&Compaction{Threshold: 0.5, Model: " small ", SystemPrompt: "  keep it  ", DumpSummaries: true}},
		{"prompt file trimmed", httpInf + "compaction: {system_prompt_file: ' c.md '}}", &Compaction{Threshold: 0.98, Model: "m", SystemPromptFile: "c.md"}},
		{"parses under process", "{transport: process, command: claude, compaction: {threshold: 0.7}}", &Compaction{Threshold: 0.7}},
		{"process model is the default", "{transport: process, command: claude, model: opus, compaction: {}}", &Compaction{Threshold: 0.98, Model: "opus"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseYAML(t, infPrefix+tt.inference+"\n")
			if err != nil {
				t.Fatalf("ParseManifest: %v", err)
			}
			if diff := cmp.Diff(tt.want, m.Inference.Compaction); diff != "" {
				t.Errorf("compaction mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// §1.5: which prompt source is set; blank values do not count.
func TestSystemPromptTrio(t *testing.T) {
	tests := []struct {
		name, fields string
		want         [3]string
	}{
		{"none", "", [3]string{}},
		{"text trimmed", "system_prompt: '  be brief  ', ", [3]string{"be brief", "", ""}},
		{"file", "system_prompt_file: ' p.md ', ", [3]string{"", "p.md", ""}},
		{"blank text and a file", "system_prompt: '  ', system_prompt_file: p.md, ", [3]string{"", "p.md", ""}},
		{"artifact", "system_prompt_artifact: guide, ", [3]string{"", "", "guide"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "name: d\nversion: '1'\nartifacts: [{name: guide, version: '1', runtime: skill}]\ninference: " + httpInf + tt.fields + "max_turns: 2}\n"
			m, err := parseYAML(t, src)
			if err != nil {
				t.Fatalf("ParseManifest: %v", err)
			}
			got := [3]string{m.Inference.SystemPrompt, m.Inference.SystemPromptFile, m.Inference.SystemPromptArtifact}
			if got != tt.want {
				t.Errorf("prompt sources = %q, want %q", got, tt.want)
			}
		})
	}
}

// §1.5: inference refusals not covered by TestParseManifestErrors.
func TestInferenceErrors(t *testing.T) {
	checkFlowErrors(t, infPrefix, []flowCase{
		{"threshold zero", httpInf + "compaction: {threshold: 0}}", errcode.ManifestInvalid, "0}"},
		{"threshold negative", httpInf + "compaction: {threshold: -0.5}}", errcode.ManifestInvalid, "-0.5"},
		{"threshold above one", httpInf + "compaction: {threshold: 1.01}}", errcode.ManifestInvalid, "1.01"},
		{"threshold infinite", httpInf + "compaction: {threshold: .inf}}", errcode.ManifestInvalid, ".inf"},
		{"threshold NaN", httpInf + "compaction: {threshold: .nan}}", errcode.ManifestInvalid, ".nan"},
		{"threshold quoted", httpInf + "compaction: {threshold: '0.5'}}", errcode.ManifestSyntax, "'0.5'"},
		{"threshold a list", httpInf + "compaction: {threshold: [1]}}", errcode.ManifestSyntax, "[1]"},
		{"dump_summaries a string", httpInf + "compaction: {dump_summaries: 'on'}}", errcode.ManifestSyntax, "'on'"},
		{"two compaction prompts", httpInf + "compaction: {system_prompt: a, system_prompt_file: b}}", errcode.ManifestInvalid, "{system"},
		{"two blank compaction prompts count", httpInf + "compaction: {system_prompt: '', system_prompt_file: ''}}", errcode.ManifestInvalid, "{system"},
		{"compaction before the prompt trio", httpInf + "system_prompt: a, system_prompt_file: b, compaction: {threshold: 2}}", errcode.ManifestInvalid, "2}"},
		{"prompt text and artifact", httpInf + "system_prompt: a, system_prompt_artifact: g}", errcode.ManifestInvalid, "{"},
		{"prompt file and artifact", httpInf + "system_prompt_file: a, system_prompt_artifact: g}", errcode.ManifestInvalid, "{"},
		{"max_turns overflows u32", httpInf + "max_turns: 4294967296}", errcode.ManifestSyntax, "4294967296"},
		{"max_task_reopens negative", httpInf + "max_task_reopens: -1}", errcode.ManifestSyntax, "-1"},
		{"api_key unset variable", httpInf + "api_key: '${NOPE}'}", errcode.ManifestInvalid, "'${NOPE}'"},
		{"process with api_key", "{transport: process, command: c, api_key: k}", errcode.ManifestInvalid, "k}"},
		{"process with legacy provider", "{transport: process, command: c, provider: {artifact: p}}", errcode.ManifestInvalid, "{artifact"},
		{"process with blank command", "{transport: process, command: '  '}", errcode.ManifestInvalid, "'  '"},
		{"transport is a list", "{transport: [http]}", errcode.ManifestSyntax, "[http]"},
		{"transport wrong case", "{transport: HTTP}", errcode.ManifestInvalid, "HTTP"},
	})
}

func TestFormatF32(t *testing.T) {
	for in, want := range map[float32]string{2: "2", 1.01: "1.01", -0.5: "-0.5", 1e-7: "0.0000001", 3e9: "3000000000"} {
		if got := formatF32(in); got != want {
			t.Errorf("formatF32(%v) = %q, want %q", in, got, want)
		}
	}
}
