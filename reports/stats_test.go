package reports

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWilson(t *testing.T) {
	tests := []struct {
		k, n      int
		low, high float64
	}{
		// Reference values computed separately (Python, from the
		// formula in Wilson 1927 / Agresti & Coull 1998).
		{0, 0, 0, 1},
		{0, 10, 0, 0.2775328},
		{10, 10, 0.7224672, 1},
		{5, 10, 0.2365931, 0.7634069},
		{81, 263, 0.2552885, 0.3662096},
		{180, 200, 0.8505942, 0.9343296},
	}
	for _, tt := range tests {
		low, high := Wilson(tt.k, tt.n, z95)
		if !near(low, tt.low, 1e-6) || !near(high, tt.high, 1e-6) {
			t.Errorf("Wilson(%d, %d) = [%.7f, %.7f], want [%.7f, %.7f]", tt.k, tt.n, low, high, tt.low, tt.high)
		}
	}
	if r := NewRate(3, 4); r.Rate != 0.75 || r.Low <= 0 || r.High >= 1 {
		t.Errorf("NewRate(3, 4) = %+v", r)
	}
}

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},
		{10, 10, 1},
		{20, 0, 2 * math.Pow(0.5, 20)}, // 1.9073486328125e-06
		{0, 20, 2 * math.Pow(0.5, 20)}, // symmetric
		{1, 0, 1},                      // 2 * 0.5, capped
		{5, 1, 2 * (1.0 + 6) / 64},     // 2 * (C(6,0)+C(6,1)) / 2^6 = 0.21875
		{12, 3, 2 * (1.0 + 15 + 105 + 455) / 32768}, // 0.03515625
	}
	for _, tt := range tests {
		if got := McNemarExact(tt.b, tt.c); !near(got, tt.want, 1e-12*math.Max(1, tt.want)) {
			t.Errorf("McNemarExact(%d, %d) = %.12g, want %.12g", tt.b, tt.c, got, tt.want)
		}
	}
	// Large samples stay finite and sensible (no underflow to 0/0).
	if p := McNemarExact(2000, 2000); !near(p, 1, 1e-9) {
		t.Errorf("McNemarExact(2000, 2000) = %g, want 1", p)
	}
	if p := McNemarExact(1100, 900); p <= 0 || p >= 1e-4 {
		t.Errorf("McNemarExact(1100, 900) = %g, want a small positive p", p)
	}
}

// TestDetect: the smallest drop the diff's McNemar test can find, by
// hand: with k pass→fail flips and none back, p = min(1, 2·½^k); at
// alpha 0.05 the first k with p < alpha is 6 (p = 1/32), at 0.01 it is 8
// (p = 1/128), so n paired cases detect 100·k/n points, and fewer than k
// detect nothing.
func TestDetect(t *testing.T) {
	tests := []struct {
		n        int
		alpha    float64
		maxDrop  float64
		minFlips int     // 0: cannot fire
		pp       float64 // min_detectable_drop_pp
		enforce  bool
	}{
		{5, 0.05, 0, 0, 0, false},
		{10, 0.05, 0, 6, 60, true},
		{20, 0.05, 0, 6, 30, true},
		{50, 0.05, 0, 6, 12, true},
		{100, 0.05, 0, 6, 6, true},
		{5, 0.01, 0, 0, 0, false},
		{10, 0.01, 0, 8, 80, true},
		{20, 0.01, 0, 8, 40, true},
		{50, 0.01, 0, 8, 16, true},
		{100, 0.01, 0, 8, 8, true},
		{0, 0.05, 0, 0, 0, false},
		{6, 0.05, 0, 6, 100, true},        // exactly enough: every case must flip
		{7, 0.01, 0, 0, 0, false},         // 2·½^7 = 1/64 > 0.01
		{100, 0.05, 5, 6, 6, true},        // a drop over 5 points is 6 flips or more: detectable
		{100, 0.05, 4.5, 6, 6, false},     // 5 flips (5 points) exceed 4.5 but are not significant
		{20, 0.05, 25, 6, 30, true},       // over 25 points is 6 flips of 20: detectable
		{20, 0.05, 20, 6, 30, false},      // 5 of 20 (25 points) exceed 20 and go unseen
		{10, 0.05, 100, 6, 60, true},      // nothing exceeds 100 points
		{200, 0.25, 0, 4, 2, true},        // p < alpha is strict, as the diff decides: 2·½^3 = 0.25 is not below 0.25
		{3, 1, 0, 2, 100.0 * 2 / 3, true}, // alpha 1: k = 1 gives p = 1, not below it
	}
	for _, tt := range tests {
		d := Detect(tt.n, DiffOptions{Alpha: tt.alpha, MaxDropPP: tt.maxDrop})
		gotPP := -1.0
		if d.MinDetectableDropPP != nil {
			gotPP = *d.MinDetectableDropPP
		}
		wantPP := tt.pp
		if tt.minFlips == 0 {
			wantPP = -1
		}
		if d.Paired != tt.n || d.MinFlips != tt.minFlips || d.CanFire != (tt.minFlips > 0) || !near(gotPP, wantPP, 1e-9) || d.Enforceable != tt.enforce {
			t.Errorf("Detect(%d, alpha %g, max-drop %g) = %+v (pp %g); want %d flips, %g points, enforceable %v",
				tt.n, tt.alpha, tt.maxDrop, d, gotPP, tt.minFlips, wantPP, tt.enforce)
		}
		// The flips found are the fewest the test itself calls significant.
		if k := d.MinFlips; k > 0 && (McNemarExact(k, 0) >= tt.alpha || (k > 1 && McNemarExact(k-1, 0) < tt.alpha)) {
			t.Errorf("n=%d alpha=%g: %d flips is not the test's threshold", tt.n, tt.alpha, k)
		}
	}
}
