package scoring

import (
	"fmt"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/capsule"
)

// The built-in scorer types of murmur's observability.eval.
const (
	TypeExitOK       = string(capsule.ScorerExitOK)
	TypeMaxTurns     = string(capsule.ScorerMaxTurns)
	TypeMaxTokens    = string(capsule.ScorerMaxTokens)
	TypeToolSequence = string(capsule.ScorerToolSequence)
	TypeLLMJudge     = string(capsule.ScorerLLMJudge) // scored by the run's judge model (murmur parses it and scores nothing)
)

// Config is what the scorers take from a capsule's observability.eval
// (murmur-formats.md §1.7): the dataset id and the scorers to compute, in
// manifest order.
type Config struct {
	DatasetID *string // nil when absent or blank (murmur passes null)
	Scorers   []ScorerSpec
	// Warnings are murmur-eval's notes on the config (an llm_judge that is
	// never scored, a duplicate name renamed), printed once per run.
	Warnings []string
}

// ScorerSpec is one scorer to compute.
type ScorerSpec struct {
	Type     string
	Name     string   // unique within Config
	Max      uint64   // max_turns, max_tokens (murmur's defaults applied)
	Expected []string // tool_sequence's tools; llm_judge's criteria
	// Threshold is the judge score from which an llm_judge scorer passes.
	Threshold float64
}

// FromEval takes the scorers of a parsed observability.eval (nil: none).
// capsule applies murmur's defaults and drops unknown types with murmur's
// warning; FromEval keeps llm_judge (its criteria in Expected, its
// threshold, default 0.5), which murmur parses but never scores, and renames a second scorer of the same name "name#2", so that
// names stay unique in eval.jsonl's scores map and in scores.parquet.
func FromEval(e *capsule.Eval) Config {
	var cfg Config
	if e == nil {
		return cfg
	}
	if e.DatasetID != "" {
		id := e.DatasetID
		cfg.DatasetID = &id
	}
	seen := map[string]int{}
	for _, s := range e.Scorers {
		spec := ScorerSpec{Type: string(s.Type), Name: s.Name, Max: s.Max, Expected: s.Expected}
		if spec.Type == TypeLLMJudge {
			spec.Threshold = DefaultThreshold
			if s.Threshold != nil {
				spec.Threshold = *s.Threshold
			}
		}
		if n := seen[spec.Name]; n > 0 {
			renamed := spec.Name + "#" + strconv.Itoa(n+1)
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("scorer name '%s' is used twice; the second is scored as '%s'", spec.Name, renamed))
			seen[spec.Name]++
			spec.Name = renamed
		}
		seen[spec.Name]++
		cfg.Scorers = append(cfg.Scorers, spec)
	}
	return cfg
}
