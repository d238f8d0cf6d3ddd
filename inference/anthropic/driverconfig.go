package anthropic

import (
	"encoding/json"
	"strconv"
	"strings"
)

// thinking is the driver's extended-thinking setting.
type thinking struct {
	enabled bool
	budget  uint32
}

// thinkingConfig reads thinking and thinking_budget_tokens as murmur's
// driver does: thinking is on when it is a string that, trimmed, is
// "enabled" in any case; the budget is a non-negative integer taken
// modulo 2^32 (the driver's u32), else 1024.
func thinkingConfig(cfg Config) thinking {
	t := thinking{budget: defaultThinkingBudget}
	var s string
	if json.Unmarshal(cfg.Thinking, &s) == nil {
		t.enabled = strings.EqualFold(strings.TrimSpace(s), "enabled")
	}
	if n, ok := uint64Literal(cfg.ThinkingBudget); ok {
		t.budget = uint32(n) //nolint:gosec // the driver's `as u32`: truncation is the behaviour
	}
	return t
}

// budgetFor is the budget sent with maxTokens: below max_tokens, at least 1.
func (t thinking) budgetFor(maxTokens int) int64 {
	b := int64(t.budget)
	return max(1, min(b, int64(maxTokens)-1))
}

// uint64Literal is serde_json's as_u64: a JSON integer written without a
// fraction or exponent that fits in 64 bits, not negative.
func uint64Literal(raw json.RawMessage) (uint64, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || strings.ContainsAny(s, ".eE") {
		return 0, false
	}
	if s == "-0" {
		return 0, true
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// betaHeader is the anthropic-beta header murmur's driver sends for
// beta_features: a string trimmed, or the strings of a list trimmed and
// joined with commas, leaving out blank ones and anything not a string;
// "" (no header) when nothing is left or the value is of another type.
func betaHeader(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return strings.TrimSpace(one)
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	var names []string
	for _, item := range list {
		var s string
		if json.Unmarshal(item, &s) == nil && strings.TrimSpace(s) != "" {
			names = append(names, strings.TrimSpace(s))
		}
	}
	return strings.Join(names, ",")
}
