package view

import (
	"fmt"
	"math"
	"strings"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// costText is a run's cost as the index's header line says it:
// "$0.0456", then how many cases were estimated and which models had no
// price; "" for a run without a cost (--prices off, a run from before
// prices). The cost is summary.json's, summed from the rows by reports
// (RunData.Cost): every attempt's spending, each case once.
func costText(r *run) string {
	c := (&reports.RunData{Results: r.rows, Scores: r.score}).Cost()
	if c == nil {
		return ""
	}
	s := reports.Dollars(c.Total)
	var notes []string
	if c.EstimatedCases > 0 {
		notes = append(notes, fmt.Sprintf("%d case%s estimated from murmur's token counts", c.EstimatedCases, map[bool]string{true: "s"}[c.EstimatedCases != 1]))
	}
	if len(c.UnpricedModels) > 0 {
		names := make([]string, len(c.UnpricedModels))
		for i, m := range c.UnpricedModels {
			names[i] = clean(m)
		}
		notes = append(notes, "no price for "+strings.Join(names, ", "))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// costLine is the header line's cost of the run and, with a baseline
// (base not nil), the baseline's beside it; "" when neither has a cost.
func costLine(r, base *run) string {
	s := costText(r)
	if base == nil {
		return s
	}
	b := costText(base)
	switch {
	case s == "" && b == "":
		return ""
	case s == "":
		s = "none"
	case b == "":
		b = "none"
	}
	return s + "; baseline " + b
}

// indexCost is a row's cost for the index, rounded to what it shows as
// reports.Dollars shows it (cents from a dollar, four decimals from a
// cent, two significant digits below: a few bytes a row), and whether it
// is estimated; nil for a row without a cost.
func indexCost(row *reports.ResultRow) (exact, estimated *float64) {
	if row.CostUSD == nil {
		return nil, nil
	}
	v := roundShown(*row.CostUSD)
	if row.CostEstimated {
		return nil, &v
	}
	return &v, nil
}

// roundShown rounds usd to the decimals reports.Dollars shows.
func roundShown(usd float64) float64 {
	scale := math.Pow10(reports.DollarDecimals(usd))
	return math.Round(usd*scale) / scale
}

// caseCost is a case attempt's cost as its page says it.
func caseCost(row *reports.ResultRow) string {
	switch {
	case row.CostUSD == nil:
		return "— (no turn priced: no price for its model, or a run without prices)"
	case row.CostEstimated:
		return reports.Dollars(*row.CostUSD) + ", estimated from murmur's token counts (the provider reported no usage)"
	}
	return reports.Dollars(*row.CostUSD)
}

// judgeCost is a score's judge cost as the scores table says it: "" for a
// score without a judge.
func judgeCost(s *reports.ScoreRow) string {
	switch {
	case s.JudgeCostUSD != nil:
		return reports.Dollars(*s.JudgeCostUSD)
	case s.JudgeModel != nil:
		return "— (no price)"
	}
	return ""
}
