// Package pricing turns a model turn's token usage into money: a table of
// prices per million tokens, keyed by model name or glob, read from a
// --prices file over a built-in table of common models (docs/cost.md).
//
// A Table is read once per run and shared read-only: Lookup and Cost are
// safe for concurrent use.
package pricing

import (
	"github.com/murmur-nexus/murmur-eval/inference"
)

// Currency is the one currency a table's prices may be in: every cost
// column is named cost_usd.
const Currency = "USD"

// perMillion is the unit prices are quoted in: USD per million tokens.
const perMillion = 1e6

// Price is a model's list price in USD per million tokens. CachedInput is
// the price of input tokens served from the provider's prompt cache; 0
// means the same as Input (the provider gives no discount, or the table
// does not say).
type Price struct {
	Input       float64
	Output      float64
	CachedInput float64
}

// Cost is the price in USD of a turn's usage: the input tokens not served
// from the cache at Input, the cached ones (u.CachedInputTokens, at most
// u.InputTokens) at CachedInput, the output tokens at Output.
func (p Price) Cost(u inference.Usage) float64 {
	in, cached := max(u.InputTokens, 0), min(max(u.CachedInputTokens, 0), max(u.InputTokens, 0))
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	return (float64(in-cached)*p.Input + float64(cached)*cachedPrice + float64(max(u.OutputTokens, 0))*p.Output) / perMillion
}
