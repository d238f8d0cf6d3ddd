package trend

import (
	"slices"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// variantTrends are the pass rate of each variant (--models, --variants)
// of the runs that have variants, run by run, after the runs' overall
// one: "overall: <variant>", empty in a run without it.
func variantTrends(runs []*Run) []Trend {
	byName := map[string][]reports.Rate{}
	var names []string
	for i, run := range runs {
		for _, v := range run.Digest.Variants {
			if byName[v.Name] == nil {
				byName[v.Name] = make([]reports.Rate, len(runs))
				for j := range byName[v.Name] {
					byName[v.Name][j] = reports.NewRate(0, 0)
				}
				names = append(names, v.Name)
			}
			byName[v.Name][i] = v.PassRate
		}
	}
	slices.Sort(names)
	out := make([]Trend, 0, len(names))
	for _, n := range names {
		out = append(out, Trend{Scorer: reports.OverallScorer + ": " + n, Rates: byName[n]})
	}
	return out
}
