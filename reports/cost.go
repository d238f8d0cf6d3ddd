package reports

import (
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pricing"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// tokensNone is the tokens_source of a turn whose tokens nobody counted
// (a process transport's: murmur writes 0): it has no cost, not a cost of 0.
const tokensNone = "none"

// TurnUsage is what one inference event says of the turn's tokens for
// pricing: the provider's usage when it reported one, else murmur's own
// counts, Estimated then; ok is false for a turn with no count at all
// and for a hook's call that failed (murmur writes an event for it).
func TurnUsage(ev *trace.Inference) (u inference.Usage, estimated, ok bool) {
	if ev.ProviderInputTokens != nil && ev.ProviderOutputTokens != nil {
		u = inference.Usage{InputTokens: *ev.ProviderInputTokens, OutputTokens: *ev.ProviderOutputTokens}
		if ev.ProviderCachedInputTokens != nil {
			u.CachedInputTokens = *ev.ProviderCachedInputTokens
		}
		return u, false, true
	}
	switch {
	case ev.TokensSource == tokensNone:
		return inference.Usage{}, false, false
	case ev.Origin != "" && ev.Decision == "error":
		// a hook's call that failed: nothing was answered, nothing billed
		return inference.Usage{}, false, false
	case ev.TokensSource == "provider": // a hook's call: its counts are the provider's
		u = inference.Usage{InputTokens: ev.InputTokens, OutputTokens: ev.OutputTokens}
		if ev.ProviderCachedInputTokens != nil {
			u.CachedInputTokens = *ev.ProviderCachedInputTokens
		}
		return u, false, true
	}
	return inference.Usage{InputTokens: ev.InputTokens, OutputTokens: ev.OutputTokens}, true, true
}

// caseCost prices the case's model turns: each inference event's row gets
// its cost_usd (events[i] is lines[i]'s row), the case's row the sum of
// the priced turns (null when none is) and cost_estimated. A hook's call
// is priced at its own model, every other turn at model, the case's.
func caseCost(row *ResultRow, events []EventRow, lines []trace.Line, model string, prices *pricing.Table) {
	if prices == nil {
		return
	}
	costs := make([]float64, 0, row.Turns)
	var total float64
	priced := false
	for i, l := range lines {
		if l.Inference == nil || i >= len(events) {
			continue
		}
		m := model
		if l.Inference.Model != "" {
			m = l.Inference.Model
		}
		usd, estimated, ok := turnCost(l.Inference, m, prices)
		if !ok {
			continue
		}
		costs = append(costs, usd)
		events[i].CostUSD = &costs[len(costs)-1]
		total += usd
		priced = true
		row.CostEstimated = row.CostEstimated || estimated
	}
	if priced {
		row.CostUSD = &total
	}
}

// turnCost is one turn's price at model's price; ok is false when the
// model has no price or the turn no token count.
func turnCost(ev *trace.Inference, model string, prices *pricing.Table) (usd float64, estimated, ok bool) {
	p, found := prices.Lookup(model)
	if !found {
		return 0, false, false
	}
	u, estimated, counted := TurnUsage(ev)
	if !counted {
		return 0, false, false
	}
	return p.Cost(u), estimated, true
}

// judgeCost prices the judge's tokens of a score row at its judge model;
// nil when the row has no judge or the model no price.
func judgeCost(row *ScoreRow, prices *pricing.Table) *float64 {
	if row.JudgeModel == nil || row.JudgeInputTokens == nil || row.JudgeOutputTokens == nil {
		return nil
	}
	p, ok := prices.Lookup(*row.JudgeModel)
	if !ok {
		return nil
	}
	usd := p.Cost(inference.Usage{InputTokens: *row.JudgeInputTokens, OutputTokens: *row.JudgeOutputTokens})
	return &usd
}
