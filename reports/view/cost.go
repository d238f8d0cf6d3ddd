package view

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// runCost is what a run's model turns and judge cost, summed from its rows
// as summary.json's cost_usd is (docs/cost.md): every attempt's cost_usd
// and its scores' judge_cost_usd.
type runCost struct {
	total     float64
	priced    int             // attempts with a cost (the agent's or the judge's)
	estimated int             // attempts priced from murmur's own token counts
	unpriced  map[string]bool // models some turn or judge request ran on without a price
}

// costOf sums run r's cost columns.
func costOf(r *run) runCost {
	c := runCost{unpriced: map[string]bool{}}
	for i := range r.rows {
		row := &r.rows[i]
		priced := row.CostUSD != nil
		switch {
		case priced:
			c.total += *row.CostUSD
		case row.Turns > 0 && row.Model != nil:
			c.unpriced[*row.Model] = true
		}
		if row.CostEstimated {
			c.estimated++
		}
		for _, j := range r.scores[attemptKey{caseKey{row.CaseID, row.Epoch, reports.VariantName(row.Variant)}, max(1, row.Attempt)}] {
			s := &r.score[j]
			switch {
			case s.JudgeCostUSD != nil:
				c.total += *s.JudgeCostUSD
				priced = true
			case s.JudgeModel != nil:
				c.unpriced[*s.JudgeModel] = true
			}
		}
		if priced {
			c.priced++
		}
	}
	return c
}

// text is the cost as the index's header line says it: "$0.0456", then
// how many attempts were estimated and which models had no price; "" for
// a run without a cost (--prices off, a run from before prices).
func (c runCost) text() string {
	if c.priced == 0 {
		return ""
	}
	s := reports.Dollars(c.total)
	var notes []string
	if c.estimated > 0 {
		notes = append(notes, fmt.Sprintf("%d case%s estimated from murmur's token counts", c.estimated, map[bool]string{true: "s"}[c.estimated != 1]))
	}
	if len(c.unpriced) > 0 {
		names := slices.Sorted(func(yield func(string) bool) {
			for m := range c.unpriced {
				if !yield(clean(m)) {
					return
				}
			}
		})
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
	s := costOf(r).text()
	if base == nil {
		return s
	}
	b := costOf(base).text()
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
	a := math.Abs(usd)
	decimals := 4
	switch {
	case a == 0:
		return 0
	case a >= 1:
		decimals = 2
	case a < 0.01:
		decimals = min(int(math.Ceil(-math.Log10(a)))+1, 12)
	}
	scale := math.Pow10(decimals)
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
