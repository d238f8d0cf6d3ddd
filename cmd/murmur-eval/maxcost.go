package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/pricing"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// errBudgetStopped is the run's end when --max-cost stopped it starting
// cases (runEnd.runErr): incomplete, resumable, as an interrupted run.
var errBudgetStopped = errors.New("--max-cost reached")

// costLimit is --max-cost: what the run has spent, and whether it stopped
// starting cases for it. The cases' loops charge each model turn's cost
// as it is spent (loop.Budget.Charge), so a worker that finished a case
// sees its whole cost before it takes the next job; the cases taken from
// the journal of an earlier invocation are charged at start. Safe for
// concurrent use.
type costLimit struct {
	max     float64
	mu      sync.Mutex
	spent   float64
	stopped bool // a job was left unstarted because of the limit
}

// newCostLimit returns --max-cost's limit, nil when there is none.
func newCostLimit(maxCost float64) *costLimit {
	if maxCost <= 0 {
		return nil
	}
	return &costLimit{max: maxCost}
}

// charge adds usd to the run's spending.
func (c *costLimit) charge(usd float64) {
	c.mu.Lock()
	c.spent += usd
	c.mu.Unlock()
}

// Spent is what the run has spent so far, in USD.
func (c *costLimit) Spent() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spent
}

// jobs passes seq's jobs on while the spending is under the limit; the
// first job asked for once it is reached is not started, and neither is
// any after it. A nil limit passes every job.
func (c *costLimit) jobs(seq iter.Seq[pipeline.Job]) iter.Seq[pipeline.Job] {
	if c == nil {
		return seq
	}
	return func(yield func(pipeline.Job) bool) {
		for j := range seq {
			if c.reached() {
				return
			}
			if !yield(j) {
				return
			}
		}
	}
}

// reached reports, and records, that the spending is at the limit.
func (c *costLimit) reached() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spent >= c.max {
		c.stopped = true
	}
	return c.stopped
}

// end is the run's end with the limit: errBudgetStopped when it left jobs
// unstarted and nothing else stopped the run (runErr).
func (c *costLimit) end(runErr error) error {
	if c == nil || runErr != nil {
		return runErr
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return errBudgetStopped
	}
	return nil
}

// chargeRecords charges the cost of the cases an earlier invocation
// journaled: every attempt's model turns and judge requests.
func (c *costLimit) chargeRecords(records []journal.Record, prices *pricing.Table) {
	if c == nil {
		return
	}
	for _, rec := range records {
		for _, a := range rec.Attempts {
			c.charge(rowCost(a.Result, prices))
			for _, s := range a.Scores {
				if s.JudgeCostUSD != nil {
					c.charge(*s.JudgeCostUSD)
				}
			}
		}
	}
}

// rowCost is what a result row's model turns cost: its cost_usd, or for a
// row journaled without one, its tokens priced as the loop prices them
// (the provider's counts, else murmur's); 0 when its model has no price.
func rowCost(r reports.ResultRow, prices *pricing.Table) float64 {
	if r.CostUSD != nil {
		return *r.CostUSD
	}
	if r.Model == nil {
		return 0
	}
	p, ok := prices.Lookup(*r.Model)
	if !ok {
		return 0
	}
	u := inference.Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}
	if r.ProviderInputTokens != nil && r.ProviderOutputTokens != nil {
		u = inference.Usage{InputTokens: *r.ProviderInputTokens, OutputTokens: *r.ProviderOutputTokens}
	}
	return p.Cost(u)
}

// stoppedByBudgetLines are what the run prints last when --max-cost
// stopped it: what it spent, what ran, and how to run the rest.
func stoppedByBudgetLines(c *costLimit, planned, rows, unfinished int, resume []string) string {
	return fmt.Sprintf("murmur-eval: --max-cost reached: $%.4f spent of $%g; stopped starting cases: %s; their rows are written\n"+
		"murmur-eval: run the rest with: %s\n"+
		"murmur-eval: (a --max-cost given to the resume counts this run's cost so far too: raise it, or leave it out)\n",
		c.Spent(), c.max, stoppedLine(planned, rows, unfinished), shellLine(resume))
}

// judgeSource is the judge's source with each answer's cost charged to
// the limit as it comes, at model's price (a judge without a price is not
// counted); src itself without a limit.
func (c *costLimit) judgeSource(src inference.Source, model string, prices *pricing.Table) inference.Source {
	if c == nil || src == nil {
		return src
	}
	p, ok := prices.Lookup(model)
	if !ok {
		return src
	}
	return chargedSource{src: src, charge: func(u inference.Usage) { c.charge(p.Cost(u)) }}
}

// chargedSource hands out providers that charge each answer's usage.
type chargedSource struct {
	src    inference.Source
	charge func(inference.Usage)
}

func (s chargedSource) ForCase(ctx context.Context, c inference.Case) (inference.Provider, error) {
	p, err := s.src.ForCase(ctx, c)
	if err != nil || p == nil {
		return p, err
	}
	return chargedProvider{p: p, charge: s.charge}, nil
}

// chargedProvider charges the usage of each answer p gives.
type chargedProvider struct {
	p      inference.Provider
	charge func(inference.Usage)
}

func (p chargedProvider) Complete(ctx context.Context, req *inference.Request, obs inference.Observer) (*inference.Response, error) {
	resp, err := p.p.Complete(ctx, req, obs)
	if resp != nil && resp.Usage != nil {
		p.charge(*resp.Usage)
	}
	return resp, err
}
