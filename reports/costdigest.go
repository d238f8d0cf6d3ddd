package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// CostDigest is what a run's model turns and judge cost (docs/cost.md):
// summary.json's "cost_usd". Summed from rows alone it is absent when no
// case has a cost (rows from before prices, --prices off); a run with a
// price table always has it (Summary.Cost), unpriced models and all.
type CostDigest struct {
	// Total is Agent plus Judge, in Currency: the agent's model turns
	// (results cost_usd) and the judge's requests (scores judge_cost_usd).
	Total float64 `json:"total"`
	Agent float64 `json:"agent"`
	Judge float64 `json:"judge"`
	// Currency is always USD; PricesDate the date of the prices table
	// (set by the run command; "" when summed from rows alone).
	Currency   string `json:"currency"`
	PricesDate string `json:"prices_date,omitempty"`
	// Agent and Total count every attempt (an attempt in error that
	// --retries ran again spent its turns too). PricedCases counts the
	// cases with a cost (by their final attempt), MeanCase is Total over
	// them, what diff compares per case.
	PricedCases int     `json:"priced_cases"`
	MeanCase    float64 `json:"mean_case"`
	// UnpricedModels are the models some turn or judge request ran on
	// that the table has no price for: their tokens are in no cost.
	UnpricedModels []string `json:"unpriced_models"`
	// EstimatedCases counts the cases priced, in part, from murmur's own
	// token counts (cost_estimated): their provider reported no usage.
	EstimatedCases int `json:"estimated_cases"`
}

// costCount sums the rows' cost columns.
type costCount struct {
	agent, judge float64
	priced       int
	estimated    int
	unpriced     map[string]bool
}

func (c *costCount) add(r ResultRow, scores []ScoreRow) {
	caseCost, priced := 0.0, false
	if r.CostUSD != nil {
		c.agent += *r.CostUSD
		caseCost, priced = *r.CostUSD, true
	} else if r.Turns > 0 && r.Model != nil {
		c.unpricedModel(*r.Model)
	}
	if r.CostEstimated {
		c.estimated++
	}
	for _, s := range scores {
		switch {
		case s.JudgeCostUSD != nil:
			c.judge += *s.JudgeCostUSD
			caseCost, priced = caseCost+*s.JudgeCostUSD, true
		case s.JudgeModel != nil:
			c.unpricedModel(*s.JudgeModel)
		}
	}
	if priced {
		c.priced++
	}
}

// addEarlier adds an earlier attempt of a case retried after an error:
// its model turns were spent, so the totals count them; the case is
// counted once, by its final attempt (add).
func (c *costCount) addEarlier(r ResultRow) {
	switch {
	case r.CostUSD != nil:
		c.agent += *r.CostUSD
	case r.Turns > 0 && r.Model != nil:
		c.unpricedModel(*r.Model)
	}
}

// Cost is the run's cost digest summed from its rows, as its Summary
// counts it (every attempt's spending, each case once); nil when no case
// has a cost. PricesDate is not in the rows: it is "".
func (r *RunData) Cost() *CostDigest { return r.Summary().cost.digest(false) }

// AddEarlier adds an earlier attempt of a case retried after an error
// (--retries): only what it spent, in the cost totals (the run's and its
// variant's). The case itself is
// the final attempt's AddCase.
func (s *Summary) AddEarlier(r ResultRow) {
	s.cost.addEarlier(r)
	s.variants.addEarlier(r)
}

func (c *costCount) unpricedModel(m string) {
	if c.unpriced == nil {
		c.unpriced = map[string]bool{}
	}
	c.unpriced[m] = true
}

// digest is nil when no case was priced, unless always.
func (c costCount) digest(always bool) *CostDigest {
	if c.priced == 0 && !always {
		return nil
	}
	d := &CostDigest{Total: c.agent + c.judge, Agent: c.agent, Judge: c.judge, Currency: "USD",
		PricedCases: c.priced, UnpricedModels: slices.Sorted(mapKeys(c.unpriced)), EstimatedCases: c.estimated}
	if c.priced > 0 {
		d.MeanCase = d.Total / float64(c.priced)
	}
	if d.UnpricedModels == nil {
		d.UnpricedModels = []string{}
	}
	return d
}

// Cost is the run's cost digest even when no case was priced: what the
// run command reports for a run that had a price table (its unpriced
// models named), where rows alone cannot tell "no price" from "no table".
func (s *Summary) Cost() *CostDigest { return s.cost.digest(true) }

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Dollars formats a cost: cents for a dollar or more, four decimals down
// to a cent (a run of small cases costs fractions of a cent), and below a
// cent two significant digits ("$0.0000039": a cheap model's case is no
// "$0.0000"), "<$0.000001" below that; "$0" for nothing.
func Dollars(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case math.Abs(usd) < 1e-6:
		return "<$0.000001" // no price list is finer
	}
	return fmt.Sprintf("$%.*f", DollarDecimals(usd), usd)
}

// DollarDecimals is how many decimals Dollars shows of usd (2, 4, or two
// significant digits below a cent, at most 7): what a page that formats
// costs itself rounds them to.
func DollarDecimals(usd float64) int {
	a := math.Abs(usd)
	switch {
	case a >= 1:
		return 2
	case a >= 0.01:
		return 4
	case a < 1e-6:
		return 7
	}
	return int(math.Ceil(-math.Log10(a))) + 1
}

// costLine reads "cost: $1.23 (agent $1.10, judge $0.13; $0.0123 a case;
// prices of 2025-11-25), 2 cases estimated from murmur's counts, no price
// for: m"; "" without a cost digest.
func (d *Digest) costLine() string {
	c := d.CostUSD
	if c == nil {
		return ""
	}
	var parts []string
	if c.Judge > 0 {
		parts = append(parts, fmt.Sprintf("agent %s, judge %s", Dollars(c.Agent), Dollars(c.Judge)))
	}
	if c.PricedCases > 0 {
		parts = append(parts, Dollars(c.MeanCase)+" a case")
	}
	if c.PricesDate != "" {
		parts = append(parts, "prices of "+c.PricesDate)
	}
	s := "cost: " + Dollars(c.Total)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, "; ") + ")"
	}
	if c.EstimatedCases > 0 {
		s += fmt.Sprintf(", %s estimated from murmur's token counts (no provider usage)", plural(c.EstimatedCases, "case"))
	}
	if len(c.UnpricedModels) > 0 {
		names := make([]string, len(c.UnpricedModels))
		for i, m := range c.UnpricedModels {
			names[i] = clean(m)
		}
		s += ", no price for " + strings.Join(names, ", ") + " (--prices)"
	}
	return s
}
