package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/pricing"
	"github.com/murmur-nexus/murmur-eval/trace"
)

func testPrices(t *testing.T) *pricing.Table {
	t.Helper()
	tab, err := pricing.Parse("p.yaml", strings.NewReader(`
models:
  m: {input: 2, output: 10, cached_input: 0.5}
  judge: {input: 1, output: 4}
  hook-model: {input: 3, output: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func i64(n int64) *int64 { return &n }

func TestCaseCost(t *testing.T) {
	provider := &trace.Inference{ProviderInputTokens: i64(1000), ProviderOutputTokens: i64(100), ProviderCachedInputTokens: i64(400), InputTokens: 9, OutputTokens: 9}
	counted := &trace.Inference{InputTokens: 2000, OutputTokens: 50, TokensSource: "cl100k_base"}
	hook := &trace.Inference{InputTokens: 100, OutputTokens: 10, TokensSource: "provider", Model: "hook-model", Origin: "hook:h", Decision: "end_turn"}
	failedHook := &trace.Inference{InputTokens: 100, TokensSource: "estimate", Model: "hook-model", Origin: "hook:h", Decision: "error"}
	cachedHook := &trace.Inference{InputTokens: 1000, OutputTokens: 10, ProviderCachedInputTokens: i64(1000), TokensSource: "provider", Model: "m", Origin: "hook:h", Decision: "end_turn"}
	none := &trace.Inference{TokensSource: "none"}
	unpricedHook := &trace.Inference{InputTokens: 100, OutputTokens: 10, TokensSource: "provider", Model: "other"}
	providerUSD := (600*2 + 400*0.5 + 100*10) / 1e6
	countedUSD := (2000*2 + 50*10) / 1e6
	hookUSD := (100*3 + 10*3) / 1e6
	tests := []struct {
		name      string
		model     string
		lines     []*trace.Inference // nil: a line of another type
		want      float64            // the case's cost; -1: null
		estimated bool
		eventCost []float64 // per line; -1: null
	}{
		{"provider usage", "m", []*trace.Inference{nil, provider, nil}, providerUSD, false, []float64{-1, providerUSD, -1}},
		{"murmur's counts are estimated", "m", []*trace.Inference{provider, counted}, providerUSD + countedUSD, true, []float64{providerUSD, countedUSD}},
		{"a hook's call at its model", "m", []*trace.Inference{provider, hook}, providerUSD + hookUSD, false, []float64{providerUSD, hookUSD}},
		{"no model price: null", "unknown", []*trace.Inference{provider, counted}, -1, false, []float64{-1, -1}},
		{"a hook priced, the model not", "unknown", []*trace.Inference{provider, hook}, hookUSD, false, []float64{-1, hookUSD}},
		{"uncounted turns: null", "m", []*trace.Inference{none}, -1, false, []float64{-1}},
		{"an unpriced hook's call is left out", "m", []*trace.Inference{provider, unpricedHook}, providerUSD, false, []float64{providerUSD, -1}},
		{"a failed hook's call costs nothing", "m", []*trace.Inference{provider, failedHook}, providerUSD, false, []float64{providerUSD, -1}},
		{"a hook's cached tokens", "m", []*trace.Inference{cachedHook}, (1000*0.5 + 10*10) / 1e6, false, []float64{(1000*0.5 + 10*10) / 1e6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := make([]trace.Line, len(tt.lines))
			for i, ev := range tt.lines {
				lines[i].Inference = ev
			}
			row, events := ResultRow{}, make([]EventRow, len(lines))
			caseCost(&row, events, lines, tt.model, testPrices(t))
			if got := orNull(row.CostUSD); math.Abs(got-tt.want) > 1e-12 || row.CostEstimated != tt.estimated {
				t.Errorf("case cost %v (estimated %t), want %v (%t)", got, row.CostEstimated, tt.want, tt.estimated)
			}
			for i, e := range events {
				if got := orNull(e.CostUSD); math.Abs(got-tt.eventCost[i]) > 1e-12 {
					t.Errorf("event %d cost %v, want %v", i, got, tt.eventCost[i])
				}
			}
		})
	}
}

func TestNoPricesNoCost(t *testing.T) {
	row, events := ResultRow{}, make([]EventRow, 1)
	caseCost(&row, events, []trace.Line{{Inference: &trace.Inference{InputTokens: 5}}}, "gpt-4o", nil)
	if row.CostUSD != nil || events[0].CostUSD != nil {
		t.Errorf("cost without a table: %v, %v", row.CostUSD, events[0].CostUSD)
	}
}

func TestJudgeCost(t *testing.T) {
	judge, other := "judge", "other"
	tests := []struct {
		name string
		row  ScoreRow
		want float64
	}{
		{"priced", ScoreRow{JudgeModel: &judge, JudgeInputTokens: i64(3000), JudgeOutputTokens: i64(200)}, (3000*1 + 200*4) / 1e6},
		{"no price", ScoreRow{JudgeModel: &other, JudgeInputTokens: i64(3000), JudgeOutputTokens: i64(200)}, -1},
		{"no judge", ScoreRow{}, -1},
	}
	for _, tt := range tests {
		if got := orNull(judgeCost(&tt.row, testPrices(t))); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: judge cost %v, want %v", tt.name, got, tt.want)
		}
	}
}

func orNull(f *float64) float64 {
	if f == nil {
		return -1
	}
	return *f
}

func TestCostDigest(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	m, judge, unpriced := "m", "judge", "other"
	var s Summary
	s.AddCase(ResultRow{RunID: "r", CaseID: "a", Status: StatusPassed, Turns: 2, Model: &m, CostUSD: f(0.25)},
		[]ScoreRow{{Scorer: "j", JudgeModel: &judge, JudgeCostUSD: f(0.05)}})
	s.AddCase(ResultRow{RunID: "r", CaseID: "b", Status: StatusPassed, Turns: 1, Model: &m, CostUSD: f(0.10), CostEstimated: true},
		[]ScoreRow{{Scorer: "j", JudgeModel: &unpriced}})
	s.AddCase(ResultRow{RunID: "r", CaseID: "c", Status: StatusError, Turns: 1, Model: &unpriced}, nil)
	s.AddCase(ResultRow{RunID: "r", CaseID: "d", Status: StatusError, Model: &unpriced}, nil) // no turn: nothing to price
	got := s.Digest(0).CostUSD
	want := &CostDigest{Total: 0.40, Agent: 0.35, Judge: 0.05, Currency: "USD", PricedCases: 2, MeanCase: 0.20,
		UnpricedModels: []string{"other"}, EstimatedCases: 1}
	if got == nil || math.Abs(got.Total-want.Total) > 1e-12 || math.Abs(got.MeanCase-want.MeanCase) > 1e-12 ||
		got.PricedCases != want.PricedCases || got.EstimatedCases != 1 || strings.Join(got.UnpricedModels, ",") != "other" {
		t.Errorf("cost digest %+v, want %+v", got, want)
	}
	d := s.Digest(0)
	if line := d.costLine(); line != "cost: $0.4000 (agent $0.3500, judge $0.0500; $0.2000 a case), 1 case estimated from murmur's token counts (no provider usage), no price for other (--prices)" {
		t.Errorf("cost line %q", line)
	}
	var none Summary
	none.AddCase(ResultRow{RunID: "r", CaseID: "a", Status: StatusPassed, Turns: 1, Model: &unpriced}, nil)
	if none.Digest(0).CostUSD != nil {
		t.Error("a cost digest from rows without cost")
	}
	if c := none.Cost(); c == nil || c.Total != 0 || strings.Join(c.UnpricedModels, ",") != "other" {
		t.Errorf("the run's cost digest without a priced case: %+v, want other unpriced", c)
	}
}

func TestCostDiff(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	judge := "judge"
	base := &RunData{Results: []ResultRow{{CaseID: "a", Epoch: 1, Turns: 1, CostUSD: f(1.00)}, {CaseID: "b", Epoch: 1, Turns: 1, CostUSD: f(0.20)}},
		Scores: []ScoreRow{{CaseID: "a", Epoch: 1, JudgeModel: &judge, JudgeCostUSD: f(0.20)}}}
	head := &RunData{Results: []ResultRow{{CaseID: "a", Epoch: 1, Turns: 1, CostUSD: f(1.50)}, {CaseID: "b", Epoch: 1, Turns: 1}}}
	got := costDiff(base, head)
	if got == nil || math.Abs(got.Base.Total-1.40) > 1e-9 || math.Abs(got.Head.Total-1.50) > 1e-9 || math.Abs(got.Change-0.10) > 1e-9 ||
		math.Abs(got.Base.MeanCase-0.70) > 1e-9 || math.Abs(got.MeanCaseChange-0.80) > 1e-9 || got.Base.Judge != 0.20 {
		t.Fatalf("cost diff %+v", got)
	}
	if text := got.costText(); text != "cost: $1.40 -> $1.50 (+$0.1000, +7.1%); a case $0.7000 -> $1.50 (+$0.8000)" {
		t.Errorf("cost text %q", text)
	}
	if costDiff(&RunData{Results: []ResultRow{{CaseID: "a"}}}, &RunData{}) != nil {
		t.Error("a cost diff of runs without cost")
	}
}

func TestDollars(t *testing.T) {
	tests := []struct {
		usd  float64
		want string
	}{
		{0, "$0"},
		{12.345, "$12.35"},
		{1, "$1.00"},
		{0.75, "$0.7500"},
		{0.01, "$0.0100"},
		{0.005, "$0.0050"},
		{0.0000039, "$0.0000039"},
		{0.00012345, "$0.00012"},
		{-0.5, "$-0.5000"},
		{0.000001, "$0.0000010"},
		{1e-15, "<$0.000001"},
	}
	for _, tt := range tests {
		if got := Dollars(tt.usd); got != tt.want {
			t.Errorf("Dollars(%g) = %q, want %q", tt.usd, got, tt.want)
		}
	}
}
