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
			{Name: "murmur-driver-anthropic", Version: "0.3.33", Runtime: RuntimeDriver, OnOverflow: OverflowDrop},
			{Name: "echo", Version: "1.2.3", Runtime: RuntimeTool, OnOverflow: OverflowDrop},
			{Name: "guide", Version: "1.0.0", Runtime: RuntimeSkill, LocalSource: true, PromptPayload: true, OnOverflow: OverflowDrop},
			{Name: "notes", Version: "local", Runtime: RuntimeSkill, Source: "./skills/notes", LocalSource: true, PromptPayload: true, OnOverflow: OverflowDrop},
			{Name: "tracer", Version: "2.0.0", Runtime: RuntimeHook, PromptPayload: true, OnOverflow: OverflowDrop},
		},
		Capabilities: Capabilities{
			Containment: ContainmentScoped,
			Filesystem:  Filesystem{Scope: "data", WorkdirExec: true},
			Env:         Env{Allow: []string{"MY_REGION"}},
			Shell:       Shell{Allow: []string{"bash", "git"}},
			Limits: Limits{MemoryBytes: 1048576, TableElements: DefaultTableElements, Instances: DefaultInstances,
				DeadlineSeconds: 30, DeadlineDeclared: true},
			Resources: defaultResources(),
			Declared:  []string{"filesystem", "shell", "env", "limits", "containment"},
		},
		Lifecycle: defaultLifecycle(),
		Inference: &Inference{
			Transport: TransportHTTP, Endpoint: "https://api.anthropic.com", Model: "claude-sonnet", APIKey: "sk-test",
			DriverArtifact: "murmur-driver-anthropic",
			DriverConfig:   json.RawMessage(`{"beta":true,"stop":["END"],"temperature":0.5}`),
			MaxTurns:       4, MaxTaskReopens: 1, MaxTokens: 1024,
			SystemPromptArtifact: "guide",
		},
	}
	if diff := cmp.Diff(want, got, manifestOpts); diff != "" {
		t.Errorf("manifest mismatch (-want +got):\n%s", diff)
	}
}

func TestParseManifestDefaults(t *testing.T) {
	got, err := parseYAML(t, "name: demo\nversion: 1.0.0\n")
	if err != nil {
		t.Fatalf("ParseManifest: %v", err)
	}
	want := &Manifest{Path: "murmur.yaml", Dir: ".", Name: "demo", Version: "1.0.0",
		Capabilities: defaultCaps(), Lifecycle: defaultLifecycle()}
	if diff := cmp.Diff(want, got, manifestOpts); diff != "" {
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
