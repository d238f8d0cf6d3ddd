package capsule

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The capsules under testdata/capsules are the kinds of projects murmur
// users have; each parses to exactly these values.
func TestRealisticManifests(t *testing.T) {
	drop := OverflowDrop
	u64 := func(v uint64) *uint64 { return &v }
	tests := map[string]func(m *Manifest){
		"agent-driver": func(m *Manifest) {
			m.Name, m.Version, m.MurVersion = "support-agent", "1.10", "0.9.2"
			driverCaps, searchCaps := defaultCaps(), defaultCaps()
			driverCaps.Network = &NetworkGrant{Allow: []string{"https://api.anthropic.com"}}
			driverCaps.Declared = []string{"network"}
			searchCaps.Network = &NetworkGrant{Allow: []string{}}
			searchCaps.Filesystem.Scope = "cache"
			searchCaps.Declared = []string{"network", "filesystem"}
			m.Artifacts = []ArtifactDecl{
				{Name: "murmur-driver-anthropic", Version: "0.3.33", Runtime: RuntimeDriver, OnOverflow: drop, Capabilities: &driverCaps},
				{Name: "web-search", Version: "2.1.0", Runtime: RuntimeTool, OnOverflow: drop, Capabilities: &searchCaps},
				{Name: "style-guide", Version: "1.0.0", Runtime: RuntimeSkill, LocalSource: true, PromptPayload: true, OnOverflow: drop},
			}
			m.Inference = &Inference{Transport: TransportHTTP, Endpoint: "https://api.anthropic.com", Model: "claude-sonnet-4-5",
				APIKey: "sk-ant-test", DriverArtifact: "murmur-driver-anthropic",
				DriverConfig: json.RawMessage(`{"beta_headers":["prompt-caching"],"temperature":0.2}`),
				MaxTurns:     20, MaxTaskReopens: 1, MaxTokens: 4096, SystemPromptArtifact: "style-guide",
				Compaction: &Compaction{Threshold: 0.85, Model: "claude-haiku-4-5", SystemPromptFile: "prompts/compact.md", DumpSummaries: true}}
			m.Context.MaxTokens = 180000
			m.Capabilities.Network = &NetworkGrant{Allow: []string{"https://api.anthropic.com", "example.com:443"}}
			m.Capabilities.Filesystem.Scope = "."
			m.Capabilities.Env.Allow = []string{"TZ", "LANG"}
			m.Capabilities.Limits.MemoryBytes, m.Capabilities.Limits.DeadlineSeconds = 268435456, 120
			m.Capabilities.Limits.DeadlineDeclared = true
			m.Capabilities.Declared = []string{"network", "filesystem", "env", "limits"}
			m.Trace.IncludeToolOutput = true
			m.Network.InternalPort = 14159
		},
		"process": func(m *Manifest) {
			m.Name, m.Version = "codex-runner", "2024.06"
			m.Inference = &Inference{Transport: TransportProcess, Command: "codex", MaxTurns: 5, MaxTaskReopens: 0,
				SystemPromptFile: "prompts/system.md"}
			c := &m.Capabilities
			c.Containment = ContainmentScoped
			c.Shell = Shell{Allow: []string{"bash", "python3", "git"}, StripEnv: []string{"*_TOKEN"}, BaselineEnv: []string{"PATH", "LANG"},
				InterpreterRuntime: []InterpreterGrant{{Binary: "python3", Dirs: []InterpreterDir{
					{Path: "/usr/lib/python3.12", ListDir: true}, {Path: "/usr/lib/python3/dist-packages", ListDir: false}}}},
				StagedRuntime: []StagedGrant{{Binary: "bash", SourcePath: "/opt/runtimes/bash-5.2", Pin: "bash-5.2.21"}}}
			c.Spawn.Allow = []string{"git"}
			c.Resources.MaxProcesses, c.Resources.CgroupCPUPercent, c.Resources.WorkdirMaxBytes = 64, 100, 1073741824
			c.Declared = []string{"shell", "spawn", "resources", "containment"}
		},
		"local-skills": func(m *Manifest) {
			m.Name, m.Version = "writer", "0.1.0"
			m.Artifacts = []ArtifactDecl{
				{Name: "house-style", Version: "local", Runtime: RuntimeSkill, Source: "./skills/house-style", LocalSource: true, PromptPayload: true, OnOverflow: drop},
				{Name: "glossary", Version: "local", Runtime: RuntimeSkill, Source: "skills/glossary.md", LocalSource: true, PromptPayload: true, OnOverflow: drop},
				{Name: "checklist", Version: "local", Runtime: RuntimeTool, Source: "notes/checklist.md", LocalSource: true, PromptPayload: true, OnOverflow: drop},
				{Name: "citations", Version: "1.2.0", Runtime: RuntimeSkill, OnOverflow: drop},
			}
			m.Warnings = []string{"artifact 'glossary' declares both 'source:' and 'version: 3.0.0'; version is ignored for local-source skills (using 'local')"}
			m.Inference = &Inference{Transport: TransportHTTP, Endpoint: "http://127.0.0.1:11434/v1", Model: "llama3",
				DriverArtifact: "murmur-driver-openai", MaxTurns: 10, MaxTaskReopens: 1, MaxTokens: 8192, SystemPromptArtifact: "house-style"}
		},
		"hooks": func(m *Manifest) {
			m.Name, m.Version = "audited", "1.0.0"
			audit, eval := defaultCaps(), defaultCaps()
			audit.Network = &NetworkGrant{Allow: []string{"https://collector.example.com"}}
			audit.Filesystem.Scope = "audit"
			audit.Limits.DeadlineSeconds, audit.Limits.DeadlineDeclared = 5, true
			audit.Declared = []string{"network", "filesystem", "limits"}
			eval.Filesystem.Scope = "."
			eval.Declared = []string{"filesystem"}
			m.Artifacts = []ArtifactDecl{
				{Name: "audit-log", Version: "0.4.0", Runtime: RuntimeHook, OnOverflow: OverflowBlock, Capabilities: &audit},
				{Name: "murmur-hook-eval", Version: "0.2.0", Runtime: RuntimeHook, OnOverflow: drop, Capabilities: &eval},
				{Name: "calc", Version: "0.1.0", Runtime: RuntimeTool, OnOverflow: drop},
			}
			m.Inference = &Inference{Transport: TransportHTTP, Endpoint: "http://localhost:8080", Model: "m",
				DriverArtifact: "murmur-driver-openai", MaxTurns: 10, MaxTaskReopens: 1, MaxTokens: 8192}
		},
		"lifecycle": func(m *Manifest) {
			m.Name, m.Version = "concierge", "3.0.0"
			m.Lifecycle = Lifecycle{TaskAcceptance: TaskAcceptanceQueue, AfterTask: AfterTaskSleep, QueueDepth: 4,
				InputTimeoutSecs: u64(300), Conversation: ConversationThreaded}
			m.Network.InternalPort = 8088
			m.Inference = &Inference{Transport: TransportProcess, Command: "claude", Model: "claude-sonnet-4-5", MaxTurns: 10, MaxTaskReopens: 1}
		},
		"eval": func(m *Manifest) {
			m.Name, m.Version = "graded", "0.3.0"
			hook := defaultCaps()
			hook.Filesystem.Scope, hook.Declared = ".", []string{"filesystem"}
			m.Artifacts = []ArtifactDecl{{Name: "murmur-hook-eval", Version: "0.2.0", Runtime: RuntimeHook, OnOverflow: drop, Capabilities: &hook}}
			m.Observability = Observability{OTelEndpoint: "http://localhost:4318", Eval: &Eval{DatasetID: "support-v3", Scorers: []Scorer{
				{Type: ScorerExitOK, Name: "exit_ok"},
				{Type: ScorerMaxTurns, Name: "turns", Max: 8},
				{Type: ScorerMaxTokens, Name: "max_tokens", Max: 100000},
				{Type: ScorerToolSequence, Name: "tool_sequence", Expected: []string{"search", "answer"}},
				{Type: ScorerLLMJudge, Name: "judge"},
			}, Skipped: []SkippedScorer{{Where: "testdata/capsules/eval/murmur.yaml:20:16", Type: "bleu"}}}}
		},
	}
	for name, fill := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "capsules", name)
			got, err := LoadManifest(filepath.Join(dir, ManifestFile), envOf(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"}))
			if err != nil {
				t.Fatalf("LoadManifest: %v", err)
			}
			want := &Manifest{Path: filepath.Join(dir, ManifestFile), Dir: dir, Capabilities: defaultCaps(), Lifecycle: defaultLifecycle()}
			fill(want)
			if diff := cmp.Diff(want, got, manifestOpts); diff != "" {
				t.Errorf("manifest mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRealisticEvalConfigJSON(t *testing.T) {
	m, err := LoadManifest(filepath.Join("testdata", "capsules", "eval", ManifestFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"dataset_id":"support-v3","scorers":[{"type":"exit_ok","name":"exit_ok"},{"type":"max_turns","name":"turns","max":8},` +
		`{"type":"max_tokens","name":"max_tokens","max":100000},{"type":"tool_sequence","name":"tool_sequence","expected":["search","answer"]},` +
		`{"type":"llm_judge","name":"judge"}]}`
	if got := m.Observability.Eval.JSON(); got != want {
		t.Errorf("MURMUR_EVAL_CONFIG =\n%s\nwant\n%s", got, want)
	}
}

func TestRealisticLocalSkills(t *testing.T) {
	m, err := LoadManifest(filepath.Join("testdata", "capsules", "local-skills", ManifestFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	skills, err := ReadLocalSkills(m)
	if err != nil {
		t.Fatalf("ReadLocalSkills: %v", err)
	}
	got := map[string]string{}
	for _, s := range skills {
		got[s.Name] = filepath.Base(s.Path) + ": " + string(s.Text)
	}
	want := map[string]string{
		"house-style": "SKILL.md: # House style\n\nWrite short sentences.\n",
		"glossary":    "glossary.md: capsule: a packaged agent\n",
		"checklist":   "checklist.md: - [ ] cite sources\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("local skills mismatch (-want +got):\n%s", diff)
	}
}
