package trace

import "math"

// AddTokens adds token counts, saturating at math.MaxInt64 instead of
// wrapping. The counts come from a model server and are not to be trusted:
// usage of MaxInt64 on two turns must not sum to a negative total (or, over
// three terms, to a small positive one that passes a max_tokens scorer). A
// negative count adds nothing; decoders refuse them, so one here is a bug
// elsewhere, not a reason to shrink a total.
func AddTokens(counts ...int64) int64 {
	var sum int64
	for _, n := range counts {
		if n <= 0 {
			continue
		}
		if sum > math.MaxInt64-n {
			return math.MaxInt64
		}
		sum += n
	}
	return sum
}
