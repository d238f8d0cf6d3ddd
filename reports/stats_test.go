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
