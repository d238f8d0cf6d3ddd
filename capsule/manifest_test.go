package capsule

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func envOf(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := kv[k]
		return v, ok
	}
}

func parseYAML(t *testing.T, src string) (*Manifest, error) {
	t.Helper()
	return ParseManifest("murmur.yaml", []byte(src), envOf(map[string]string{"ANTHROPIC_KEY": "sk-test"}))
}

func defaultLimits() Limits {
	return Limits{MemoryBytes: DefaultMemoryBytes, TableElements: DefaultTableElements, Instances: DefaultInstances, DeadlineSeconds: DefaultDeadlineSeconds}
}

func TestParseManifestFull(t *testing.T) {
	src := `
name: demo
version: 0.1.0
mur_version: 0.9.2
artifacts:
  - name: murmur-driver-anthropic
    version: 0.3.33
    runtime: driver
  - name: echo
    version: 1.2.3
  - name: guide
    version: 1.0.0
    runtime: skill
  - name: notes
    runtime: skill
    source: ./skills/notes
  - name: tracer
    version: 2.0.0
    runtime: hook
    local_source: false
    prompt_payload: true
capabilities:
  containment: " scoped "
  filesystem:
    scope: " data "
    workdir_exec: true
  env:
    allow: [MY_REGION]
  shell:
    allow: [bash, git]
  limits:
    memory_bytes: 1048576
    deadline_seconds: 30
inference:
  endpoint: " https://api.anthropic.com "
  model: claude-sonnet
  api_key: ${ANTHROPIC_KEY}
  max_turns: 4
  max_tokens: 1024
  system_prompt_artifact: guide
  driver:
    artifact: murmur-driver-anthropic
    config: {temperature: 0.5, stop: [END], beta: true}
`
	got, err := parseYAML(t, src)
	if err != nil {
		t.Fatalf("ParseManifest: %v", err)
	}
	want := &Manifest{
		Path: "murmur.yaml", Dir: ".",
		Name: "demo", Version: "0.1.0", MurVersion: "0.9.2",
		Artifacts: []ArtifactDecl{
			{Name: "murmur-driver-anthropic", Version: "0.3.33", Runtime: RuntimeDriver},
			{Name: "echo", Version: "1.2.3", Runtime: RuntimeTool},
			{Name: "guide", Version: "1.0.0", Runtime: RuntimeSkill, LocalSource: true, PromptPayload: true},
			{Name: "notes", Version: "local", Runtime: RuntimeSkill, Source: "./skills/notes", LocalSource: true, PromptPayload: true},
			{Name: "tracer", Version: "2.0.0", Runtime: RuntimeHook, PromptPayload: true},
		},
		Capabilities: Capabilities{
			Containment: ContainmentScoped,
			Filesystem:  Filesystem{Scope: "data", WorkdirExec: true},
			Env:         Env{Allow: []string{"MY_REGION"}},
			Shell:       Shell{Allow: []string{"bash", "git"}},
			Limits: Limits{MemoryBytes: 1048576, TableElements: DefaultTableElements, Instances: DefaultInstances,
				DeadlineSeconds: 30, DeadlineDeclared: true},
		},
		Inference: &Inference{
			Transport: TransportHTTP, Endpoint: "https://api.anthropic.com", Model: "claude-sonnet", APIKey: "sk-test",
			DriverArtifact: "murmur-driver-anthropic",
			DriverConfig:   json.RawMessage(`{"beta":true,"stop":["END"],"temperature":0.5}`),
			MaxTurns:       4, MaxTaskReopens: 1, MaxTokens: 1024,
			SystemPromptArtifact: "guide",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest mismatch (-want +got):\n%s", diff)
	}
}

func TestParseManifestDefaults(t *testing.T) {
	got, err := parseYAML(t, "name: demo\nversion: 1.0.0\n")
	if err != nil {
		t.Fatalf("ParseManifest: %v", err)
	}
	want := &Manifest{Path: "murmur.yaml", Dir: ".", Name: "demo", Version: "1.0.0",
		Capabilities: Capabilities{Limits: defaultLimits()}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest mismatch (-want +got):\n%s", diff)
	}

	got, err = parseYAML(t, `
name: demo
version: 1.0.0
inference:
  endpoint: http://127.0.0.1:8080/v1
  model: m
  provider: {artifact: legacy-driver}
`)
	if err != nil {
		t.Fatalf("ParseManifest: %v", err)
	}
	wantInf := &Inference{Transport: TransportHTTP, Endpoint: "http://127.0.0.1:8080/v1", Model: "m",
		DriverArtifact: "legacy-driver", MaxTurns: 10, MaxTaskReopens: 1, MaxTokens: 8192}
	if diff := cmp.Diff(wantInf, got.Inference); diff != "" {
		t.Errorf("inference mismatch (-want +got):\n%s", diff)
	}
}

func TestParseManifestDriverWinsOverProvider(t *testing.T) {
	got, err := parseYAML(t, `
name: demo
version: 1.0.0
inference:
  endpoint: http://localhost:1234
  model: m
  provider: {artifact: old}
  driver: {artifact: new}
`)
	if err != nil {
		t.Fatalf("ParseManifest: %v", err)
	}
	if got.Inference.DriverArtifact != "new" {
		t.Errorf("DriverArtifact = %q, want %q", got.Inference.DriverArtifact, "new")
	}
}

func TestParseManifestProcessTransport(t *testing.T) {
	got, err := parseYAML(t, `
name: demo
version: 1.0.0
inference:
  transport: process
  command: " claude "
  max_task_reopens: 0
  system_prompt: "  be brief  "
`)
	if err != nil {
		t.Fatalf("ParseManifest: %v", err)
	}
	want := &Inference{Transport: TransportProcess, Command: "claude", MaxTurns: 10, MaxTaskReopens: 0, SystemPrompt: "be brief"}
	if diff := cmp.Diff(want, got.Inference); diff != "" {
		t.Errorf("inference mismatch (-want +got):\n%s", diff)
	}
}

// Numbers, booleans and dates keep their source text in string fields.
func TestParseManifestScalarsStayVerbatim(t *testing.T) {
	got, err := parseYAML(t, `
name: 42
version: 1.10
mur_version: 0.40
artifacts:
  - name: true
    version: 2.0
  - name: "x"
    version: 2024-01-02
`)
	if err != nil {
		t.Fatalf("ParseManifest: %v", err)
	}
	want := []string{"42", "1.10", "0.40", "true", "2.0", "x", "2024-01-02"}
	gotStrs := []string{got.Name, got.Version, got.MurVersion,
		got.Artifacts[0].Name, got.Artifacts[0].Version, got.Artifacts[1].Name, got.Artifacts[1].Version}
	if diff := cmp.Diff(want, gotStrs); diff != "" {
		t.Errorf("scalar text mismatch (-want +got):\n%s", diff)
	}
}

func TestParseManifestIgnoresUnknownKeys(t *testing.T) {
	got, err := parseYAML(t, `
name: demo
version: 1.0.0
future_block: {a: [1, 2]}
context: {max_tokens: 5}
artifacts:
  - {name: echo, version: 1.0.0, colour: blue, capabilities: {network: {allow: [x]}}}
capabilities:
  network: {allow: ["https://example.com"]}
  limits: {cpu: lots}
  sparkles: 3
inference:
  endpoint: https://e.example
  model: m
  driver: {artifact: d, flavour: x}
  compaction: {threshold: 0.5}
  whatever: [1]
`)
	if err != nil {
		t.Fatalf("ParseManifest: %v", err)
	}
	if got.Artifacts[0].Name != "echo" || got.Inference.DriverArtifact != "d" {
		t.Errorf("got artifacts %+v, inference %+v", got.Artifacts, got.Inference)
	}
}

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

func TestParseManifestSourceWithVersionWarns(t *testing.T) {
	m, err := parseYAML(t, "name: d\nversion: '1'\nartifacts:\n  - {name: s, runtime: skill, source: s.md, version: 9.9.9}\n")
	if err != nil {
		t.Fatalf("ParseManifest: %v", err)
	}
	if m.Artifacts[0].Version != "local" || len(m.Warnings) != 1 {
		t.Errorf("version = %q, warnings = %q; want local and one warning", m.Artifacts[0].Version, m.Warnings)
	}
}

func TestLoadManifest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "murmur.yaml")
	if err := os.WriteFile(path, []byte("name: d\nversion: '1'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(path, nil)
	if err != nil {
		t.Fatalf("LoadManifest: %v", err)
	}
	if m.Dir != dir || m.Path != path {
		t.Errorf("Dir, Path = %q, %q; want %q, %q", m.Dir, m.Path, dir, path)
	}
	if _, err := LoadManifest(filepath.Join(dir, "nope.yaml"), nil); errcode.Code(err) != errcode.IONotFound {
		t.Errorf("missing file: code = %q, want %q", errcode.Code(err), errcode.IONotFound)
	}
	if _, err := LoadManifest(dir, nil); errcode.Code(err) != errcode.IO {
		t.Errorf("directory: code = %q, want %q", errcode.Code(err), errcode.IO)
	}
	if err := os.WriteFile(path, []byte("name: d\nversion: '1'\ncapabilities: {limits: {instances: 0}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadManifest(path, nil)
	if want := path + ":3:36"; whereOf(asError(err)) != want {
		t.Errorf("where = %q, want %q (error: %v)", whereOf(asError(err)), want, err)
	}
}

func TestDriverConfigJSON(t *testing.T) {
	tests := []struct {
		config, want, code string
	}{
		{"{b: 1, a: [x, true, ~], c: {d: 0x10}}", `{"a":["x",true,null],"b":1,"c":{"d":16}}`, ""},
		{"{f: 1.0, g: 0.5, h: 1e-7, i: -3, big: 18446744073709551616}", `{"big":1.8446744073709552e19,"f":1.0,"g":0.5,"h":1e-7,"i":-3}`, ""},
		{"{d: 2001-12-14, s: '1.0', n: .nan, 1: one}", `{"1":"one","d":"2001-12-14","n":null,"s":"1.0"}`, ""},
		{"{a: &x [1], b: *x, c: {<<: {m: 1}}}", `{"a":[1],"b":[1],"c":{"<<":{"m":1}}}`, ""},
		{"~", "", ""},
		{"{[1]: x}", "", errcode.ManifestInvalid},
		{"{~: x}", "", errcode.ManifestInvalid},
		{"plain", "", errcode.ManifestInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.config, func(t *testing.T) {
			m, err := parseYAML(t, "name: d\nversion: '1'\ninference:\n  endpoint: https://e\n  model: m\n  driver:\n    artifact: d\n    config: "+tt.config+"\n")
			if got := errcode.Code(err); got != tt.code {
				t.Fatalf("code = %q, want %q (error: %v)", got, tt.code, err)
			}
			if err == nil && string(m.Inference.DriverConfig) != tt.want {
				t.Errorf("DriverConfig = %s, want %s", m.Inference.DriverConfig, tt.want)
			}
		})
	}
}

func TestDriverConfigAliasBomb(t *testing.T) {
	src := "name: d\nversion: '1'\nx0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
	prev := "a0"
	for i := 1; i < 9; i++ {
		name := "a" + string(rune('0'+i))
		src += "x" + string(rune('0'+i)) + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	src += "inference:\n  endpoint: https://e\n  model: m\n  driver:\n    artifact: d\n    config: {bomb: *" + prev + "}\n"
	_, err := parseYAML(t, src)
	if got := errcode.Code(err); got != errcode.ManifestInvalid {
		t.Errorf("code = %q, want %q (error: %v)", got, errcode.ManifestInvalid, err)
	}
}
