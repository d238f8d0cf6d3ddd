package main

import (
	"math"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pricing"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/survey"
)

// budgetOptions are the run's spending limits: --max-cost for the run,
// --case-max-tokens and --case-max-cost for each case's agent loop.
type budgetOptions struct {
	maxCost       float64 // USD; 0: none
	caseMaxTokens int64   // 0: none
	caseMaxCost   float64 // USD; 0: none
}

// register adds the budget flags to fs, with env as their defaults.
func (b *budgetOptions) register(fs *pflag.FlagSet, env map[string]string, envErrs *[]error) {
	parse := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	fs.Float64Var(&b.maxCost, "max-cost", envFloat(env, "MURMUR_EVAL_MAX_COST", 0, parse, envErrs), "stop starting cases once the run's model turns have cost this many USD (resumed cases' cost included); the running cases finish, the run is incomplete (stopped \"budget\", exit 6) and --resume finishes it; 0 for no limit; needs a price for the model (--prices) (env MURMUR_EVAL_MAX_COST)")
	fs.Int64Var(&b.caseMaxTokens, "case-max-tokens", int64(envInt(env, "MURMUR_EVAL_CASE_MAX_TOKENS", 0, envErrs)), "end a case's agent loop once its model turns used this many tokens (input + output, the provider's counts, else murmur's): status over_budget, exit_status budget_reached; 0 for no limit (env MURMUR_EVAL_CASE_MAX_TOKENS)")
	fs.Float64Var(&b.caseMaxCost, "case-max-cost", envFloat(env, "MURMUR_EVAL_CASE_MAX_COST", 0, parse, envErrs), "end a case's agent loop once its model turns cost this many USD: status over_budget, exit_status budget_reached; 0 for no limit; needs a price for the model (--prices) (env MURMUR_EVAL_CASE_MAX_COST)")
}

// validate refuses negative limits, and amounts that are not numbers.
func (b budgetOptions) validate() error {
	switch {
	case !(b.maxCost >= 0) || math.IsInf(b.maxCost, 1):
		return errcode.New(errcode.Usage, "--max-cost must be a non-negative amount of USD, got %g", b.maxCost).WithHint("0 is no limit")
	case b.caseMaxTokens < 0:
		return errcode.New(errcode.Usage, "--case-max-tokens must not be negative, got %d", b.caseMaxTokens).WithHint("0 is no limit")
	case !(b.caseMaxCost >= 0) || math.IsInf(b.caseMaxCost, 1):
		return errcode.New(errcode.Usage, "--case-max-cost must be a non-negative amount of USD, got %g", b.caseMaxCost).WithHint("0 is no limit")
	}
	return nil
}

// priced reports whether a limit needs the models' prices.
func (b budgetOptions) priced() bool { return b.maxCost > 0 || b.caseMaxCost > 0 }

// checkPrices refuses, before any case starts, a cost limit on a model the
// table has no price for: the limit would never be reached.
func (b budgetOptions) checkPrices(prices *pricing.Table, models []string) error {
	if !b.priced() {
		return nil
	}
	flag := "--max-cost"
	if b.maxCost == 0 {
		flag = "--case-max-cost"
	}
	for _, m := range models {
		if _, ok := prices.Lookup(m); !ok {
			return errcode.New(errcode.Usage, "%s: no price for model %q, so its cost cannot be counted", flag, m).
				WithHint("give its price per million tokens in a --prices file (models: {%q: {input: ..., output: ...}}), or drop %s", m, flag)
		}
	}
	return nil
}

// caseBudget is the Loop stage's budget: the case limits, the prices, and
// limit's charge when the run has a --max-cost (limit nil: none).
func (b budgetOptions) caseBudget(prices *pricing.Table, limit *costLimit) loop.Budget {
	budget := loop.Budget{MaxTokens: b.caseMaxTokens, MaxCost: b.caseMaxCost}
	if b.priced() {
		budget.Price = priceOf(prices)
	}
	if limit != nil {
		budget.Charge = limit.charge
	}
	return budget
}

// priceOf binds a table's prices to a case's model.
func priceOf(prices *pricing.Table) func(model string) func(inference.Usage) (float64, bool) {
	return func(model string) func(inference.Usage) (float64, bool) {
		p, ok := prices.Lookup(model)
		return func(u inference.Usage) (float64, bool) {
			if !ok {
				return 0, false
			}
			return p.Cost(u), true
		}
	}
}

// fingerprint is what of the budgets goes into the run's fingerprint:
// the case limits, which decide cases' verdicts ("" when none is set).
// --max-cost does not: like --workers it decides how much runs, not how
// a case ends, so a resume may raise or drop it.
func (b budgetOptions) fingerprint() string {
	if b.caseMaxTokens == 0 && b.caseMaxCost == 0 {
		return ""
	}
	return "tokens=" + strconv.FormatInt(b.caseMaxTokens, 10) + " cost=" + strconv.FormatFloat(b.caseMaxCost, 'g', -1, 64)
}

// args are the case limits' flags for a resume command.
func (b budgetOptions) args() []string {
	var args []string
	if b.caseMaxTokens != 0 {
		args = append(args, "--case-max-tokens", strconv.FormatInt(b.caseMaxTokens, 10))
	}
	if b.caseMaxCost != 0 {
		args = append(args, "--case-max-cost", strconv.FormatFloat(b.caseMaxCost, 'g', -1, 64))
	}
	return args
}

// runBudgets are a run's spending limits made ready: the prices they
// count with, the --max-cost limit (nil: none) and the Loop stage's
// budget.
type runBudgets struct {
	prices *pricing.Table
	limit  *costLimit
	loop   loop.Budget
}

// newRunBudgets checks the budget flags against the run's prices and
// models before anything starts (a cost limit on a model without a price
// is a usage error) and makes them ready.
func newRunBudgets(o options, env map[string]string) (runBudgets, error) {
	prices := budgetPrices(o)
	if err := o.budget.checkPrices(prices, runModels(o, env)); err != nil {
		return runBudgets{}, err
	}
	limit := newCostLimit(o.budget.maxCost)
	return runBudgets{prices: prices, limit: limit, loop: o.budget.caseBudget(prices, limit)}, nil
}

// runModels are the models the run's cases talk to: the manifest's
// inference.model, or each variant's (--models, --variants); none for a
// script capsule, or a manifest the capsule's preparation will refuse
// anyway.
func runModels(o options, env map[string]string) []string {
	m := survey.ReadManifest(o.capsuleDir, env)
	if m == nil || m.Inference == nil {
		return nil
	}
	if o.variants.set.Len() == 0 {
		return nonEmpty(m.Inference.Model)
	}
	var models []string
	for _, v := range o.variants.set.All() {
		if inf, err := v.Apply(m.Inference); err == nil && !slices.Contains(models, inf.Model) {
			models = append(models, nonEmpty(inf.Model)...)
		}
	}
	return models
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// budgetPrices is the price table the budgets count with: the run's
// (the built-in table, --prices read over it).
func budgetPrices(o options) *pricing.Table { return o.prices.table }
