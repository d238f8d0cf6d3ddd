package loop

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// TestSpendCharge: a case's spending counts the provider's usage when it
// reported one, murmur's counts otherwise, and says when a limit is
// reached.
func TestSpendCharge(t *testing.T) {
	perMillion := func(model string) func(inference.Usage) (float64, bool) {
		if model != "m" {
			return func(inference.Usage) (float64, bool) { return 0, false }
		}
		return func(u inference.Usage) (float64, bool) {
			return float64(u.InputTokens)*1/1e6 + float64(u.OutputTokens)*10/1e6, true
		}
	}
	type turn struct {
		provider *inference.Usage
		in, out  int64
	}
	tests := []struct {
		name   string
		budget Budget
		model  string
		turns  []turn
		want   []bool // reached after each turn
	}{
		{"no limit", Budget{}, "m", []turn{{nil, 1e9, 1e9}}, []bool{false}},
		{"tokens: murmur's counts", Budget{MaxTokens: 300}, "m", []turn{{nil, 100, 50}, {nil, 100, 49}, {nil, 1, 0}}, []bool{false, false, true}},
		{"tokens: provider preferred", Budget{MaxTokens: 300}, "m", []turn{{&inference.Usage{InputTokens: 290, OutputTokens: 10}, 1, 1}}, []bool{true}},
		{"cost", Budget{MaxCost: 0.001, Price: perMillion}, "m", []turn{{nil, 500, 40}, {nil, 500, 10}}, []bool{false, true}},
		{"cost: unpriced model never reaches", Budget{MaxCost: 0.001, Price: perMillion}, "other", []turn{{nil, 1e9, 1e9}}, []bool{false}},
		{"tokens or cost, whichever first", Budget{MaxTokens: 1e6, MaxCost: 0.01, Price: perMillion}, "m", []turn{{nil, 0, 1000}}, []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpend(tt.budget, tt.model)
			for i, tu := range tt.turns {
				got := s.charge(tu.provider, tu.in, tu.out) != ""
				if got != tt.want[i] {
					t.Errorf("turn %d: reached = %v, want %v", i, got, tt.want[i])
				}
			}
		})
	}
}

// TestSpendChargesRun: each priced turn is told to the run's Charge, with
// or without a limit of the case's own.
func TestSpendChargesRun(t *testing.T) {
	var got []float64
	b := Budget{Charge: func(usd float64) { got = append(got, usd) },
		Price: func(string) func(inference.Usage) (float64, bool) {
			return func(u inference.Usage) (float64, bool) { return float64(u.InputTokens+u.OutputTokens) / 1e6, true }
		}}
	s := newSpend(b, "m")
	s.charge(nil, 1e6, 0)
	s.charge(&inference.Usage{InputTokens: 2e6, OutputTokens: 1e6}, 0, 0)
	if want := []float64{1, 3}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("charged %v, want %v", got, want)
	}
	if s := newSpend(Budget{Charge: b.Charge}, "m"); s != nil {
		t.Errorf("a charge without prices counts turns: %+v", s)
	}
}

// TestSpendChargesHooks: a hook's model call is charged to the run at its
// own model's price, and not to the case's limits.
func TestSpendChargesHooks(t *testing.T) {
	var charged float64
	b := Budget{MaxTokens: 100, Charge: func(usd float64) { charged += usd },
		Price: func(model string) func(inference.Usage) (float64, bool) {
			return func(u inference.Usage) (float64, bool) {
				return float64(u.InputTokens) / 1e6, model == "hook-model"
			}
		}}
	s := newSpend(b, "case-model")
	s.chargeRun("hook-model", inference.Usage{InputTokens: 2e6})
	s.chargeRun("unpriced", inference.Usage{InputTokens: 2e6})
	if charged != 2 {
		t.Errorf("charged %v, want 2 (the priced hook call)", charged)
	}
	if got := s.charge(nil, 10, 0); got != "" {
		t.Errorf("the case's 10 tokens reached its limit of 100 (a hook's tokens counted?): %q", got)
	}
}
