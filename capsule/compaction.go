package capsule

import (
	"gopkg.in/yaml.v3"
)

// DefaultCompactionThreshold is the fraction of the context window at which
// compaction fires when inference.compaction.threshold is absent.
const DefaultCompactionThreshold float32 = 0.98

// Compaction is inference.compaction (§1.5): how the conversation is
// summarised once context.max_tokens is near. It parses under both
// transports but only takes effect under http.
type Compaction struct {
	Threshold        float32 // in (0.0, 1.0]; default 0.98
	Model            string  // default: inference.model
	SystemPrompt     string  // verbatim (not trimmed); "" when absent
	SystemPromptFile string  // trimmed, relative to the manifest's directory
	DumpSummaries    bool    // write out/compaction-summaries.jsonl
}

type rawCompaction struct {
	node                                  *yaml.Node
	threshold                             optFloat
	model, systemPrompt, systemPromptFile scalar
	dumpSummaries                         optBool
}

func decodeCompaction(errs *fieldErrs, m *mapping) *rawCompaction {
	c := errs.child(m, "compaction")
	if c == nil {
		return nil
	}
	return &rawCompaction{
		node:             c.node,
		threshold:        errs.float32(c, "threshold"),
		model:            errs.str(c, "model"),
		systemPrompt:     errs.str(c, "system_prompt"),
		systemPromptFile: errs.str(c, "system_prompt_file"),
		dumpSummaries:    errs.boolean(c, "dump_summaries"),
	}
}

// lowerCompaction applies murmur's two checks: the threshold range, and at
// most one of the two prompt fields (present, even blank, counts as set, as
// in murmur). The caller fills in Model's default, the inference model.
func lowerCompaction(r *rawCompaction, invalid func(n *yaml.Node, field, format string, args ...any) error) (*Compaction, error) {
	if r == nil {
		return nil, nil
	}
	c := &Compaction{Threshold: DefaultCompactionThreshold, Model: r.model.text,
		SystemPrompt: r.systemPrompt.text, SystemPromptFile: r.systemPromptFile.trimmed(), DumpSummaries: r.dumpSummaries.val}
	if t := r.threshold; t.node != nil {
		// murmur tests `t <= 0 || t > 1`, which lets NaN through; NaN is
		// refused here too (see RATIONALE.md).
		if !(t.val > 0 && t.val <= 1) {
			return nil, invalid(t.node, "inference.compaction.threshold", "must be in (0.0, 1.0] but got %s", formatF32(t.val))
		}
		c.Threshold = t.val
	}
	if r.systemPrompt.node != nil && r.systemPromptFile.node != nil {
		return nil, invalid(r.node, "inference.compaction.system_prompt", "at most one of inference.compaction.system_prompt, inference.compaction.system_prompt_file may be set")
	}
	return c, nil
}
