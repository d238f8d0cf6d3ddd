package capsule

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestParseManifestErrors(t *testing.T) {
	const head = "name: demo\nversion: 1.0.0\n"
	const inf = head + "inference:\n  endpoint: https://e.example\n  model: m\n  driver: {artifact: d}\n"
	tests := []struct {
		name, src, code, where string
	}{
		{"empty document", "", errcode.ManifestMissingField, "murmur.yaml"},
		{"missing name", "version: 1.0.0\n", errcode.ManifestMissingField, "murmur.yaml:1:1"},
		{"blank name", "name: '  '\nversion: 1.0.0\n", errcode.ManifestMissingField, "murmur.yaml:1:7"},
		{"null version", "name: demo\nversion: ~\n", errcode.ManifestMissingField, "murmur.yaml:1:1"},
		{"bad yaml", "name: demo\nversion: 1.0.0\nstray\nkey: 1\n", errcode.ManifestSyntax, "murmur.yaml:3"},
		{"list at root", "- name: demo\n", errcode.ManifestSyntax, "murmur.yaml:1:1"},
		{"second document", head + "---\nname: other\n", errcode.ManifestSyntax, "murmur.yaml:3:1"},
		{"duplicate key", head + "name: again\n", errcode.ManifestSyntax, "murmur.yaml:3:1"},
		{"name is a map", "name: {a: b}\nversion: 1.0.0\n", errcode.ManifestSyntax, "murmur.yaml:1:7"},
		{"artifacts is a map", head + "artifacts: {a: b}\n", errcode.ManifestSyntax, "murmur.yaml:3:12"},
		{"artifact is a string", head + "artifacts:\n  - echo\n", errcode.ManifestSyntax, "murmur.yaml:4:5"},
		{"inference is a list", head + "inference: [a]\n", errcode.ManifestSyntax, "murmur.yaml:3:12"},
		{"bool is a string", head + "artifacts:\n  - {name: a, version: '1', local_source: \"true\"}\n", errcode.ManifestSyntax, "murmur.yaml:4:43"},
		{"bool is yes", head + "capabilities:\n  filesystem:\n    workdir_exec: yes\n", errcode.ManifestSyntax, "murmur.yaml:5:19"},
		{"int is a word", inf + "  max_turns: ten\n", errcode.ManifestSyntax, "murmur.yaml:7:14"},
		{"int is a float", inf + "  max_turns: 1.5\n", errcode.ManifestSyntax, "murmur.yaml:7:14"},
		{"int is quoted", inf + "  max_turns: '5'\n", errcode.ManifestSyntax, "murmur.yaml:7:14"},
		{"int overflows u32", inf + "  max_tokens: 4294967296\n", errcode.ManifestSyntax, "murmur.yaml:7:15"},
		{"int is negative", inf + "  max_turns: -1\n", errcode.ManifestSyntax, "murmur.yaml:7:14"},
		{"allow is a string", head + "capabilities:\n  env: {allow: HOME}\n", errcode.ManifestSyntax, "murmur.yaml:4:16"},
		{"artifact without name", head + "artifacts:\n  - version: 1.0.0\n", errcode.ManifestInvalid, "murmur.yaml:4:5"},
		{"artifact without version", head + "artifacts:\n  - name: echo\n", errcode.ManifestInvalid, "murmur.yaml:4:5"},
		{"runtime wasm", head + "artifacts:\n  - {name: a, version: '1', runtime: wasm}\n", errcode.ManifestInvalid, "murmur.yaml:4:38"},
		{"runtime unknown", head + "artifacts:\n  - {name: a, version: '1', runtime: plugin}\n", errcode.ManifestInvalid, "murmur.yaml:4:38"},
		{"source needs local_source", head + "artifacts:\n  - {name: a, runtime: tool, source: ./a}\n", errcode.ManifestInvalid, "murmur.yaml:4:38"},
		{"max_turns zero", inf + "  max_turns: 0\n", errcode.ManifestInvalid, "murmur.yaml:7:14"},
		{"max_tokens zero", inf + "  max_tokens: 0\n", errcode.ManifestInvalid, "murmur.yaml:7:15"},
		{"two system prompts", inf + "  system_prompt: a\n  system_prompt_file: b.md\n", errcode.ManifestInvalid, "murmur.yaml:4:3"},
		{"duplicate driver block", inf + "  driver: {artifact: e}\n", errcode.ManifestSyntax, "murmur.yaml:7:3"},
		{"driver config not a mapping", head + "inference:\n  endpoint: https://e\n  model: m\n  driver: {artifact: d, config: [1]}\n", errcode.ManifestInvalid, "murmur.yaml:6:33"},
		{"missing driver", head + "inference:\n  endpoint: https://e\n  model: m\n", errcode.ManifestInvalid, "murmur.yaml:4:3"},
		{"blank driver artifact", head + "inference:\n  endpoint: https://e\n  model: m\n  driver: {artifact: ' '}\n", errcode.ManifestInvalid, "murmur.yaml:6:22"},
		{"missing endpoint", head + "inference:\n  model: m\n  driver: {artifact: d}\n", errcode.ManifestInvalid, "murmur.yaml:4:3"},
		{"missing model", head + "inference:\n  endpoint: https://e\n  driver: {artifact: d}\n", errcode.ManifestInvalid, "murmur.yaml:4:3"},
		{"plain http remote", head + "inference:\n  endpoint: http://example.com\n  model: m\n  driver: {artifact: d}\n", errcode.ManifestInvalid, "murmur.yaml:4:13"},
		{"plain http ipv6 loopback", head + "inference:\n  endpoint: http://[::1]:80\n  model: m\n  driver: {artifact: d}\n", errcode.ManifestInvalid, "murmur.yaml:4:13"},
		{"endpoint scheme", head + "inference:\n  endpoint: ftp://x\n  model: m\n  driver: {artifact: d}\n", errcode.ManifestInvalid, "murmur.yaml:4:13"},
		{"endpoint relative", head + "inference:\n  endpoint: example.com\n  model: m\n  driver: {artifact: d}\n", errcode.ManifestInvalid, "murmur.yaml:4:13"},
		{"unknown transport", head + "inference:\n  transport: grpc\n", errcode.ManifestInvalid, "murmur.yaml:4:14"},
		{"process with endpoint", head + "inference:\n  transport: process\n  command: claude\n  endpoint: https://e\n", errcode.ManifestInvalid, "murmur.yaml:6:13"},
		{"process with max_tokens", head + "inference:\n  transport: process\n  command: claude\n  max_tokens: 5\n", errcode.ManifestInvalid, "murmur.yaml:6:15"},
		{"process with driver", head + "inference:\n  transport: process\n  command: claude\n  driver: {}\n", errcode.ManifestInvalid, "murmur.yaml:6:11"},
		{"process without command", head + "inference:\n  transport: process\n", errcode.ManifestInvalid, "murmur.yaml:4:3"},
		{"prompt artifact undeclared", inf + "  system_prompt_artifact: guide\n", errcode.ManifestInvalid, "murmur.yaml:7:27"},
		{"prompt artifact not a payload", head + "artifacts:\n  - {name: guide, version: '1'}\ninference:\n  endpoint: https://e\n  model: m\n  driver: {artifact: d}\n  system_prompt_artifact: guide\n", errcode.ManifestInvalid, "murmur.yaml:9:27"},
		{"containment unknown", head + "capabilities:\n  containment: strict\n", errcode.ManifestInvalid, "murmur.yaml:4:16"},
		{"memory limit zero", head + "capabilities:\n  limits:\n    memory_bytes: 0\n", errcode.ManifestInvalid, "murmur.yaml:5:19"},
		{"deadline zero", head + "capabilities:\n  limits:\n    deadline_seconds: 0\n", errcode.ManifestInvalid, "murmur.yaml:5:23"},
		{"shell without allow", head + "capabilities:\n  shell: {}\n", errcode.ManifestInvalid, "murmur.yaml:4:10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseYAML(t, tt.src)
			if err == nil {
				t.Fatalf("ParseManifest = %+v, want error %s", m, tt.code)
			}
			if got := errcode.Code(err); got != tt.code {
				t.Errorf("code = %s, want %s (error: %v)", got, tt.code, err)
			}
			if got := whereOf(asError(err)); got != tt.where {
				t.Errorf("where = %q, want %q (error: %v)", got, tt.where, err)
			}
		})
	}
}

func TestParseManifestAPIKey(t *testing.T) {
	env := map[string]string{"MY_KEY": "secret", "EMPTY": ""}
	tests := []struct {
		name, value, want, code string
	}{
		{"variable set", "${MY_KEY}", "secret", ""},
		{"variable set but empty", "${EMPTY}", "", ""},
		{"variable trimmed", "'  ${MY_KEY}  '", "secret", ""},
		{"variable unset", "${NOT_SET}", "", errcode.ManifestInvalid},
		{"lowercase is literal", "${lower}", "${lower}", ""},
		{"prefix is literal", "Bearer ${MY_KEY}", "Bearer ${MY_KEY}", ""},
		{"dollar only is literal", "$MY_KEY", "$MY_KEY", ""},
		{"plain key", " sk-abc ", "sk-abc", ""},
		{"blank is absent", "'   '", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "name: d\nversion: '1'\ninference:\n  endpoint: https://e\n  model: m\n  driver: {artifact: d}\n  api_key: " + tt.value + "\n"
			m, err := ParseManifest("murmur.yaml", []byte(src), envOf(env))
			if got := errcode.Code(err); got != tt.code {
				t.Fatalf("code = %q, want %q (error: %v)", got, tt.code, err)
			}
			if err != nil {
				return
			}
			if m.Inference.APIKey != tt.want {
				t.Errorf("APIKey = %q, want %q", m.Inference.APIKey, tt.want)
			}
		})
	}
	// A nil lookup means nothing is set.
	_, err := ParseManifest("murmur.yaml", []byte("name: d\nversion: '1'\ninference:\n  endpoint: https://e\n  model: m\n  driver: {artifact: d}\n  api_key: ${X}\n"), nil)
	if got := errcode.Code(err); got != errcode.ManifestInvalid {
		t.Errorf("nil lookup: code = %q, want %q", got, errcode.ManifestInvalid)
	}
}
