package capsule

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// The parts of a manifest §1.6–§1.9 describe.
type blockParts struct {
	Context       Context
	Observability Observability
	Trace         Trace
	Network       Network
	Lifecycle     Lifecycle
	Warnings      []string
}

// §1.6–§1.9: context, observability, trace, network and lifecycle, each
// field's default and value.
func TestBlockFields(t *testing.T) {
	timeout := uint64(0)
	tests := []struct {
		name, yaml string
		want       func(b *blockParts)
	}{
		{"all absent", "", func(b *blockParts) {}},
		{"all empty", "context: {}\nobservability: {}\ntrace: {}\nnetwork: {}\nlifecycle: {}\n", func(b *blockParts) {}},
		{"context budget", "context: {max_tokens: 200000}\n", func(b *blockParts) { b.Context.MaxTokens = 200000 }},
		{"otel endpoint trimmed", "observability: {otel_endpoint: ' http://otel:4318 '}\n", func(b *blockParts) {
			b.Observability.OTelEndpoint = "http://otel:4318"
		}},
		{"blank otel endpoint is absent", "observability: {otel_endpoint: '  '}\n", func(b *blockParts) {}},
		{"empty eval", "observability: {eval: {}}\n", func(b *blockParts) { b.Observability.Eval = &Eval{Scorers: []Scorer{}} }},
		{"scorer defaults", "observability: {eval: {dataset_id: 42, scorers: [{type: max_turns}, {type: max_tokens}, {type: tool_sequence}, {type: exit_ok, max: 3, expected: [x]}]}}\n", func(b *blockParts) {
			b.Observability.Eval = &Eval{DatasetID: "42", Scorers: []Scorer{
				{Type: ScorerMaxTurns, Name: "max_turns", Max: 10},
				{Type: ScorerMaxTokens, Name: "max_tokens", Max: 100000},
				{Type: ScorerToolSequence, Name: "tool_sequence", Expected: []string{}},
				{Type: ScorerExitOK, Name: "exit_ok"},
			}}
		}},
		{"max_turns max narrowed like murmur's as u32", "observability: {eval: {scorers: [{type: max_turns, max: 4294967297}]}}\n", func(b *blockParts) {
			b.Observability.Eval = &Eval{Scorers: []Scorer{{Type: ScorerMaxTurns, Name: "max_turns", Max: 1}}}
		}},
		{"unknown scorer skipped", "observability: {eval: {scorers: [{type: rouge, name: r}, {type: llm_judge}]}}\n", func(b *blockParts) {
			b.Observability.Eval = &Eval{Scorers: []Scorer{{Type: ScorerLLMJudge, Name: "llm_judge"}},
				Skipped: []SkippedScorer{{Where: "murmur.yaml:3:41", Type: "rouge"}}}
		}},
		{"llm_judge criteria and threshold", "observability: {eval: {scorers: [{type: llm_judge, name: j, expected: [cites, polite], threshold: 0.7}]}}\n", func(b *blockParts) {
			th := 0.7
			b.Observability.Eval = &Eval{Scorers: []Scorer{{Type: ScorerLLMJudge, Name: "j", Expected: []string{"cites", "polite"}, Threshold: &th}}}
		}},
		{"trace tool output", "trace: {include_tool_output: true}\n", func(b *blockParts) { b.Trace.IncludeToolOutput = true }},
		{"internal port", "network: {internal_port: 65535}\n", func(b *blockParts) { b.Network.InternalPort = 65535 }},
		{"lifecycle values", "lifecycle: {task_acceptance: none, after_task: sleep, queue_depth: 0, input_timeout_secs: 0, conversation: threaded}\n", func(b *blockParts) {
			b.Lifecycle = Lifecycle{TaskAcceptance: TaskAcceptanceNone, AfterTask: AfterTaskSleep, QueueDepth: 0,
				InputTimeoutSecs: &timeout, Conversation: ConversationThreaded}
		}},
		{"lifecycle partial", "lifecycle: {task_acceptance: queue}\n", func(b *blockParts) { b.Lifecycle.TaskAcceptance = TaskAcceptanceQueue }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseYAML(t, "name: d\nversion: '1'\n"+tt.yaml)
			if err != nil {
				t.Fatalf("ParseManifest: %v", err)
			}
			want := blockParts{Lifecycle: defaultLifecycle()}
			tt.want(&want)
			got := blockParts{m.Context, m.Observability, m.Trace, m.Network, m.Lifecycle, m.Warnings}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("blocks mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLifecycleDefaults(t *testing.T) {
	want := Lifecycle{TaskAcceptance: TaskAcceptanceSingle, AfterTask: AfterTaskExit, QueueDepth: 1, Conversation: ConversationStateless}
	if diff := cmp.Diff(want, defaultLifecycle()); diff != "" {
		t.Errorf("lifecycle defaults mismatch (-want +got):\n%s", diff)
	}
}

// §1.6–§1.9: the refusals. Everything but a zero context budget is a shape
// error (E-MAN-002), as serde rejects it while deserialising.
func TestBlockErrors(t *testing.T) {
	const head = "name: d\nversion: '1'\n"
	tests := []struct {
		name, prefix, value, code, at string
	}{
		{"context budget zero", "context: ", "{max_tokens: 0}", errcode.ManifestInvalid, "0}"},
		{"context budget negative", "context: ", "{max_tokens: -5}", errcode.ManifestSyntax, "-5"},
		{"context is a string", "context: ", "big", errcode.ManifestSyntax, "big"},
		{"otel endpoint is a map", "observability: ", "{otel_endpoint: {a: b}}", errcode.ManifestSyntax, "{a"},
		{"eval is a list", "observability: ", "{eval: [a]}", errcode.ManifestSyntax, "[a]"},
		{"scorers is a map", "observability: ", "{eval: {scorers: {type: exit_ok}}}", errcode.ManifestSyntax, "{type"},
		{"scorer without type", "observability: ", "{eval: {scorers: [{name: x}]}}", errcode.ManifestSyntax, "{name"},
		{"scorer with null type", "observability: ", "{eval: {scorers: [{type: ~}]}}", errcode.ManifestSyntax, "~"},
		{"scorer max quoted", "observability: ", "{eval: {scorers: [{type: max_turns, max: '5'}]}}", errcode.ManifestSyntax, "'5'"},
		{"scorer expected a string", "observability: ", "{eval: {scorers: [{type: tool_sequence, expected: a}]}}", errcode.ManifestSyntax, "a}"},
		{"judge threshold over 1", "observability: ", "{eval: {scorers: [{type: llm_judge, threshold: 1.5}]}}", errcode.ManifestInvalid, "1.5"},
		{"judge threshold negative", "observability: ", "{eval: {scorers: [{type: llm_judge, threshold: -0.1}]}}", errcode.ManifestInvalid, "-0.1"},
		{"threshold on another scorer", "observability: ", "{eval: {scorers: [{type: max_turns, threshold: 0.5}]}}", errcode.ManifestInvalid, "0.5"},
		{"judge threshold a string", "observability: ", "{eval: {scorers: [{type: llm_judge, threshold: high}]}}", errcode.ManifestSyntax, "high"},
		{"include_tool_output a string", "trace: ", "{include_tool_output: 'true'}", errcode.ManifestSyntax, "'true'"},
		{"internal port overflows u16", "network: ", "{internal_port: 70000}", errcode.ManifestSyntax, "70000"},
		{"internal port negative", "network: ", "{internal_port: -1}", errcode.ManifestSyntax, "-1"},
		{"task_acceptance unknown", "lifecycle: ", "{task_acceptance: sometimes}", errcode.ManifestSyntax, "sometimes"},
		{"after_task wrong case", "lifecycle: ", "{after_task: Exit}", errcode.ManifestSyntax, "Exit"},
		{"conversation a list", "lifecycle: ", "{conversation: [threaded]}", errcode.ManifestSyntax, "[threaded]"},
		{"queue_depth negative", "lifecycle: ", "{queue_depth: -1}", errcode.ManifestSyntax, "-1"},
		{"input timeout a float", "lifecycle: ", "{input_timeout_secs: 1.5}", errcode.ManifestSyntax, "1.5"},
	}
	for _, tt := range tests {
		checkFlowErrors(t, head+tt.prefix, []flowCase{{tt.name, tt.value, tt.code, tt.at}})
	}
}

func TestExpectedVariants(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{[]string{"a"}, "expected `a`"},
		{[]string{"exit", "sleep"}, "expected `exit` or `sleep`"},
		{[]string{"none", "single", "queue"}, "expected one of `none`, `single`, `queue`"},
	} {
		if got := expectedVariants(tt.in); got != tt.want {
			t.Errorf("expectedVariants(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
