package pricing

import (
	"math"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
)

func TestCost(t *testing.T) {
	tests := []struct {
		name  string
		price Price
		usage inference.Usage
		want  float64
	}{
		{"input and output", Price{Input: 1.25, Output: 10}, inference.Usage{InputTokens: 1_000_000, OutputTokens: 100_000}, 2.25},
		{"cached at its price", Price{Input: 1.25, Output: 10, CachedInput: 0.125}, inference.Usage{InputTokens: 1_000_000, CachedInputTokens: 400_000}, 0.6*1.25 + 0.4*0.125},
		{"cached without a cached price is input", Price{Input: 2, Output: 8}, inference.Usage{InputTokens: 500_000, CachedInputTokens: 500_000}, 1},
		{"cached past input is clamped", Price{Input: 2, Output: 8, CachedInput: 0.5}, inference.Usage{InputTokens: 100, CachedInputTokens: 1000}, 100 * 0.5 / 1e6},
		{"negative counts are zero", Price{Input: 2, Output: 8}, inference.Usage{InputTokens: -5, OutputTokens: -5}, 0},
		{"zero usage", Price{Input: 2, Output: 8}, inference.Usage{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.price.Cost(tt.usage); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Cost = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	tab, err := Parse("p.yaml", strings.NewReader(`
currency: USD
date: 2026-12-01
models:
  "gpt-5*": {input: 1, output: 1}
  "gpt-5-mini*": {input: 2, output: 2}
  "gpt-5-mini": {input: 3, output: 3}
  "*-mini": {input: 4, output: 4}
  "gpt-?-nano": {input: 5, output: 5}
  "gpt-*-nano": {input: 6, output: 6}
  "a*": {input: 7, output: 7}
  "*z": {input: 8, output: 8}
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model string
		want  float64 // Input of the entry that wins; 0: no price
	}{
		{"gpt-5-mini", 3},            // exact over every glob
		{"gpt-5-mini-2025-08-07", 2}, // 10 literals over 5
		{"gpt-5", 1},
		{"gpt-5-nano", 5},    // equal literals: a '?' over a '*'
		{"gpt-4.1-nano", 6},  // only the '*' glob matches
		{"o4-mini", 4},       // a suffix glob
		{"az", 8},            // a tie on literals and stars: byte order, "*z" before "a*"
		{"claude-opus-4", 0}, // nothing matches
		{"", 0},              // no model, no price
		{"GPT-5", 0},         // names are case-sensitive
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			p, ok := tab.Lookup(tt.model)
			if got := map[bool]float64{true: p.Input}[ok]; got != tt.want {
				t.Errorf("Lookup(%q) = %v (found %t), want %v", tt.model, p.Input, ok, tt.want)
			}
		})
	}
}
