package pricing

// BuiltinDate is the day the built-in list prices were read from the
// providers' pricing pages (docs/cost.md names the pages).
const BuiltinDate = "2025-11-25"

// builtinSource names the built-in table in entries and the summary.
const builtinSource = "built-in"

// builtinPrices are list prices in USD per million tokens (standard tier,
// no batch discount). Names are exact or globs over a dated snapshot
// ("-20??-??-??", "-20??????") so that a model released later under a
// longer name (gpt-5-pro beside gpt-5, gpt-4o-2024-05-13 at its own
// price) is never priced by a neighbour's entry: it stays unpriced and is
// said, until a --prices file names it.
func builtinPrices() []Entry {
	return []Entry{
		// OpenAI: https://openai.com/api/pricing/ and https://platform.openai.com/docs/pricing
		{Model: "gpt-5", Price: Price{Input: 1.25, Output: 10.00, CachedInput: 0.125}},
		{Model: "gpt-5-20??-??-??", Price: Price{Input: 1.25, Output: 10.00, CachedInput: 0.125}},
		{Model: "gpt-5-chat-latest", Price: Price{Input: 1.25, Output: 10.00, CachedInput: 0.125}},
		{Model: "gpt-5.1", Price: Price{Input: 1.25, Output: 10.00, CachedInput: 0.125}},
		{Model: "gpt-5.1-20??-??-??", Price: Price{Input: 1.25, Output: 10.00, CachedInput: 0.125}},
		{Model: "gpt-5-mini", Price: Price{Input: 0.25, Output: 2.00, CachedInput: 0.025}},
		{Model: "gpt-5-mini-20??-??-??", Price: Price{Input: 0.25, Output: 2.00, CachedInput: 0.025}},
		{Model: "gpt-5-nano", Price: Price{Input: 0.05, Output: 0.40, CachedInput: 0.005}},
		{Model: "gpt-5-nano-20??-??-??", Price: Price{Input: 0.05, Output: 0.40, CachedInput: 0.005}},
		{Model: "gpt-5-pro", Price: Price{Input: 15.00, Output: 120.00}},
		{Model: "gpt-5-pro-20??-??-??", Price: Price{Input: 15.00, Output: 120.00}},
		{Model: "gpt-4.1", Price: Price{Input: 2.00, Output: 8.00, CachedInput: 0.50}},
		{Model: "gpt-4.1-20??-??-??", Price: Price{Input: 2.00, Output: 8.00, CachedInput: 0.50}},
		{Model: "gpt-4.1-mini", Price: Price{Input: 0.40, Output: 1.60, CachedInput: 0.10}},
		{Model: "gpt-4.1-mini-20??-??-??", Price: Price{Input: 0.40, Output: 1.60, CachedInput: 0.10}},
		{Model: "gpt-4.1-nano", Price: Price{Input: 0.10, Output: 0.40, CachedInput: 0.025}},
		{Model: "gpt-4.1-nano-20??-??-??", Price: Price{Input: 0.10, Output: 0.40, CachedInput: 0.025}},
		{Model: "gpt-4o", Price: Price{Input: 2.50, Output: 10.00, CachedInput: 1.25}},
		{Model: "gpt-4o-2024-08-06", Price: Price{Input: 2.50, Output: 10.00, CachedInput: 1.25}},
		{Model: "gpt-4o-2024-11-20", Price: Price{Input: 2.50, Output: 10.00, CachedInput: 1.25}},
		{Model: "gpt-4o-2024-05-13", Price: Price{Input: 5.00, Output: 15.00}},
		{Model: "gpt-4o-mini", Price: Price{Input: 0.15, Output: 0.60, CachedInput: 0.075}},
		{Model: "gpt-4o-mini-2024-07-18", Price: Price{Input: 0.15, Output: 0.60, CachedInput: 0.075}},
		{Model: "o3", Price: Price{Input: 2.00, Output: 8.00, CachedInput: 0.50}},
		{Model: "o3-2025-04-16", Price: Price{Input: 2.00, Output: 8.00, CachedInput: 0.50}},
		{Model: "o4-mini", Price: Price{Input: 1.10, Output: 4.40, CachedInput: 0.275}},
		{Model: "o4-mini-2025-04-16", Price: Price{Input: 1.10, Output: 4.40, CachedInput: 0.275}},

		// Anthropic: https://www.anthropic.com/pricing#api and
		// https://docs.claude.com/en/docs/about-claude/pricing (cache reads at
		// a tenth of input; cache writes are priced as input, see docs/cost.md).
		{Model: "claude-opus-4-5", Price: Price{Input: 5.00, Output: 25.00, CachedInput: 0.50}},
		{Model: "claude-opus-4-5-20??????", Price: Price{Input: 5.00, Output: 25.00, CachedInput: 0.50}},
		{Model: "claude-opus-4-1", Price: Price{Input: 15.00, Output: 75.00, CachedInput: 1.50}},
		{Model: "claude-opus-4-1-20??????", Price: Price{Input: 15.00, Output: 75.00, CachedInput: 1.50}},
		{Model: "claude-opus-4-0", Price: Price{Input: 15.00, Output: 75.00, CachedInput: 1.50}},
		{Model: "claude-opus-4-20??????", Price: Price{Input: 15.00, Output: 75.00, CachedInput: 1.50}},
		{Model: "claude-sonnet-4-5", Price: Price{Input: 3.00, Output: 15.00, CachedInput: 0.30}},
		{Model: "claude-sonnet-4-5-20??????", Price: Price{Input: 3.00, Output: 15.00, CachedInput: 0.30}},
		{Model: "claude-sonnet-4-0", Price: Price{Input: 3.00, Output: 15.00, CachedInput: 0.30}},
		{Model: "claude-sonnet-4-20??????", Price: Price{Input: 3.00, Output: 15.00, CachedInput: 0.30}},
		{Model: "claude-haiku-4-5", Price: Price{Input: 1.00, Output: 5.00, CachedInput: 0.10}},
		{Model: "claude-haiku-4-5-20??????", Price: Price{Input: 1.00, Output: 5.00, CachedInput: 0.10}},
	}
}

// Builtin is the built-in table of common models' list prices, dated
// BuiltinDate. Each call builds a fresh table.
func Builtin() *Table {
	entries := builtinPrices()
	for i := range entries {
		entries[i].Source = builtinSource
	}
	return newTable(builtinSource, BuiltinDate, entries)
}
