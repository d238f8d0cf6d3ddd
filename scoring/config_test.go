package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/capsule"
)

func TestFromEval(t *testing.T) {
	// murmur's example manifest, parsed by capsule (which applies the
	// defaults and drops unknown types).
	const manifest = `name: demo
version: 0.1.0
observability:
  eval:
    dataset_id: my-ds
    scorers:
      - type: exit_ok
        name: success_check
      - type: max_turns
        name: turn_limit
        max: 5
      - type: max_turns
      - {type: vibes}
      - {type: llm_judge, name: judge, expected: [cites the source], threshold: 0.7}
      - {type: llm_judge}
      - {type: max_tokens, name: turn_limit}
      - type: tool_sequence
        expected: [calc, notes]
`
	m, err := capsule.ParseManifest("murmur.yaml", []byte(manifest), nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := "my-ds"
	want := Config{
		DatasetID: &ds,
		Scorers: []ScorerSpec{
			{Type: TypeExitOK, Name: "success_check"},
			{Type: TypeMaxTurns, Name: "turn_limit", Max: 5},
			{Type: TypeMaxTurns, Name: "max_turns", Max: 10},
			{Type: TypeLLMJudge, Name: "judge", Expected: []string{"cites the source"}, Threshold: 0.7},
			{Type: TypeLLMJudge, Name: "llm_judge", Threshold: DefaultThreshold},
			{Type: TypeMaxTokens, Name: "turn_limit#2", Max: 100000},
			{Type: TypeToolSequence, Name: "tool_sequence", Expected: []string{"calc", "notes"}},
		},
		Warnings: []string{
			"scorer name 'turn_limit' is used twice; the second is scored as 'turn_limit#2'",
		},
	}
	if diff := cmp.Diff(want, FromEval(m.Observability.Eval)); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if s := m.Observability.Eval.Skipped; len(s) != 1 || s[0].Type != "vibes" || len(m.Warnings) != 0 {
		t.Errorf("capsule's skipped scorers %v and warnings %q, want vibes skipped", s, m.Warnings)
	}
	if cfg := FromEval(nil); cfg.DatasetID != nil || cfg.Scorers != nil {
		t.Errorf("FromEval(nil) = %+v, want empty", cfg)
	}
}
