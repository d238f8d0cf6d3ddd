package loop

import (
	"fmt"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// Budget is a case's limit on its agent loop (--case-max-tokens,
// --case-max-cost), shared read-only by the run's cases. The zero value
// has no limit.
type Budget struct {
	// MaxTokens bounds the input and output tokens of the case's model
	// turns; 0 for no bound.
	MaxTokens int64
	// MaxCost bounds the cost of the case's model turns, in USD; 0 for
	// no bound.
	MaxCost float64
	// Price returns what a turn's usage costs on model, and false when
	// model has no price (the turn then costs nothing here: the run
	// refuses to start a budget on a model it cannot price). nil prices
	// nothing.
	Price func(model string) func(inference.Usage) (usd float64, priced bool)
	// Charge, when set, is told each priced turn's cost as it is spent:
	// the run's --max-cost (called concurrently by the run's cases).
	Charge func(usd float64)
}

// Limited reports whether b bounds anything.
func (b Budget) Limited() bool { return b.MaxTokens > 0 || b.MaxCost > 0 }

// counts reports whether a case's turns must be counted: a limit, or a
// run-wide charge.
func (b Budget) counts() bool { return b.Limited() || (b.Charge != nil && b.Price != nil) }

// spend is one case's spending against its Budget, charged after each
// model turn. It lives on the case's goroutine and needs no lock.
type spend struct {
	budget Budget
	price  func(inference.Usage) (float64, bool)
	tokens int64
	usd    float64
}

// newSpend starts a case's spending on model; nil when nothing counts.
func newSpend(b Budget, model string) *spend {
	if !b.counts() {
		return nil
	}
	s := &spend{budget: b}
	if b.Price != nil {
		s.price = b.Price(model)
	}
	return s
}

// charge adds one model turn: the provider's usage when it reported one,
// else murmur's counts (in, out), as the rows' cost prefers them. It
// returns, once a limit is reached, the result text that says which; ""
// while the case may go on. A nil spend is never reached.
func (s *spend) charge(provider *inference.Usage, in, out int64) string {
	if s == nil {
		return ""
	}
	u := inference.Usage{InputTokens: in, OutputTokens: out}
	if provider != nil {
		u = *provider
	}
	s.tokens += u.InputTokens + u.OutputTokens
	if s.price != nil {
		if usd, ok := s.price(u); ok {
			s.usd += usd
			if s.budget.Charge != nil {
				s.budget.Charge(usd)
			}
		}
	}
	return s.reached()
}

// chargeRun tells the run's Charge what a model call besides the case's
// turns cost (a hook's, at its own model): --max-cost counts it, as the
// rows' cost_usd does; the case's own limits do not.
func (s *spend) chargeRun(model string, u inference.Usage) {
	if s == nil || s.budget.Charge == nil || s.budget.Price == nil {
		return
	}
	if usd, ok := s.budget.Price(model)(u); ok {
		s.budget.Charge(usd)
	}
}

// reached is the result text once a limit is reached, "" before.
func (s *spend) reached() string {
	switch {
	case s.budget.MaxTokens > 0 && s.tokens >= s.budget.MaxTokens:
		return fmt.Sprintf("error: case budget reached: %d tokens of --case-max-tokens %d", s.tokens, s.budget.MaxTokens)
	case s.budget.MaxCost > 0 && s.usd >= s.budget.MaxCost:
		return fmt.Sprintf("error: case budget reached: $%.4f of --case-max-cost %g", s.usd, s.budget.MaxCost)
	}
	return ""
}
