package reports

import "math"

// z95 is the standard normal quantile for a two-sided 95% interval.
const z95 = 1.959963984540054

// Rate is a pass rate with its 95% Wilson score interval.
type Rate struct {
	Passed int     `json:"passed"`
	Total  int     `json:"total"`
	Rate   float64 `json:"rate"`     // Passed/Total; 0 when Total is 0
	Low    float64 `json:"ci95_low"` // Wilson interval; [0, 1] when Total is 0
	High   float64 `json:"ci95_high"`
}

// NewRate computes passed/total and its 95% Wilson score interval. Wilson
// rather than the normal approximation because pass rates near 0 or 1 and
// small samples are the common case, where the normal interval leaves [0, 1]
// or collapses to a point.
func NewRate(passed, total int) Rate {
	r := Rate{Passed: passed, Total: total}
	r.Low, r.High = Wilson(passed, total, z95)
	if total > 0 {
		r.Rate = float64(passed) / float64(total)
	}
	return r
}

// Wilson returns the Wilson score interval of k successes in n trials for
// the normal quantile z. With n = 0 it is [0, 1]: nothing is known.
func Wilson(k, n int, z float64) (low, high float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// McNemarExact is the two-sided exact McNemar test of paired outcomes: b
// pairs went one way (pass→fail), c the other (fail→pass). Under the null
// hypothesis of no change each discordant pair is a fair coin, so the
// p-value is twice the binomial tail P(X ≤ min(b, c)) for X ~ Bin(b+c, ½),
// capped at 1; with no discordant pairs it is 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// Sum the tail in log space: C(n, i)/2^n underflows float64 for n past
	// about 1074 when computed directly.
	lnHalf := float64(n) * math.Log(0.5)
	sum := 0.0
	for i := 0; i <= k; i++ {
		sum += math.Exp(lnChoose(n, i) + lnHalf)
	}
	return math.Min(1, 2*sum)
}

// lnChoose is ln C(n, k).
func lnChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// MinFlips is the smallest number k of paired cases that went pass→fail,
// with none the other way (the most favourable case for the test), for
// which McNemarExact(k, 0) < alpha, as diff decides a regression; 0 when
// even all n paired cases going pass→fail would not reach it. With no
// flip back, p = min(1, 2·½^k), so k does not depend on n: only whether
// n reaches it does.
func MinFlips(n int, alpha float64) int {
	for k := 1; k <= n; k++ {
		if McNemarExact(k, 0) < alpha {
			return k
		}
	}
	return 0
}
