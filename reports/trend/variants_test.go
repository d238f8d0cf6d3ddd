package trend

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// TestVariantTrends: each variant's pass rate is a trend of its own, run
// by run; a run without the variant has none (0 of 0).
func TestVariantTrends(t *testing.T) {
	runs := []*Run{
		{Digest: reports.Digest{Variants: []reports.VariantDigest{{Name: "b", PassRate: reports.NewRate(1, 2)}}}},
		{Digest: reports.Digest{Variants: []reports.VariantDigest{{Name: "b", PassRate: reports.NewRate(2, 2)}, {Name: "a", PassRate: reports.NewRate(0, 2)}}}},
		{},
	}
	want := []Trend{
		{Scorer: "overall: a", Rates: []reports.Rate{reports.NewRate(0, 0), reports.NewRate(0, 2), reports.NewRate(0, 0)}},
		{Scorer: "overall: b", Rates: []reports.Rate{reports.NewRate(1, 2), reports.NewRate(2, 2), reports.NewRate(0, 0)}},
	}
	if diff := cmp.Diff(variantTrends(runs), want); diff != "" {
		t.Errorf("variantTrends: got -, want +\n%s", diff)
	}
	if got := variantTrends([]*Run{{}}); len(got) != 0 {
		t.Errorf("no variants: %v", got)
	}
}
