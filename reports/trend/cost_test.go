package trend

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/reports"
)

func TestRunCost(t *testing.T) {
	tests := []struct {
		name string
		cost *reports.CostDigest
		want string
	}{
		{"no cost", nil, "-"},
		{"priced", &reports.CostDigest{Total: 12.345}, "$12.35"},
		{"a model unpriced", &reports.CostDigest{Total: 0.5, UnpricedModels: []string{"m"}}, "$0.5000+"},
	}
	for _, tt := range tests {
		if got := runCost(&Run{Digest: reports.Digest{CostUSD: tt.cost}}); got != tt.want {
			t.Errorf("%s: runCost = %q, want %q", tt.name, got, tt.want)
		}
	}
}
