package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/pricing"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// pricesOff is the --prices value that computes no cost.
const pricesOff = "off"

// priceOptions are --prices: the table the run's cost is computed with.
type priceOptions struct {
	file  string         // as given: "" the built-in table, "off" none
	table *pricing.Table // read by load; nil under --prices off
}

// register adds --prices to fs, with env as its default.
func (p *priceOptions) register(fs *pflag.FlagSet, env map[string]string) {
	fs.StringVar(&p.file, "prices", env["MURMUR_EVAL_PRICES"], "a YAML (or JSON) file of model prices in USD per million tokens, read over the built-in table of common models; \"off\" computes no cost (env MURMUR_EVAL_PRICES) (default the built-in table, docs/cost.md)")
}

// load reads the table: the built-in one without --prices, the file over
// it with, none under --prices off. A bad file is E-EVL-008 (exit 2).
func (p *priceOptions) load() error {
	switch p.file {
	case "":
		p.table = pricing.Builtin()
	case pricesOff:
		p.table = nil
	default:
		t, err := pricing.Load(p.file)
		if err != nil {
			return err
		}
		p.table = t
	}
	return nil
}

// args are --prices for a resume command: the same file prices the rest.
func (p priceOptions) args(abs func(string) string) []string {
	switch p.file {
	case "":
		return nil
	case pricesOff:
		return []string{"--prices", pricesOff}
	}
	return []string{"--prices", abs(p.file)}
}

// date is the table's date for the summary; "" without a table.
func (p priceOptions) date() string {
	if p.table == nil {
		return ""
	}
	return p.table.Date
}

// withPrices makes each case's rows priced with table.
func withPrices(runOf func(*pipeline.Case) reports.CaseRun, table *pricing.Table) func(*pipeline.Case) reports.CaseRun {
	if table == nil {
		return runOf
	}
	return func(c *pipeline.Case) reports.CaseRun {
		r := runOf(c)
		r.Prices = table
		return r
	}
}

// warnUnpriced says, once per run, before any case and after the
// refusals (a refused run warns of nothing), each of the
// run's models (its cases' and the judge's) the table has no price for:
// their cost stays null, never guessed. Nothing under --prices off.
func warnUnpriced(stderr io.Writer, table *pricing.Table, models []string) {
	if table == nil {
		return
	}
	seen := map[string]bool{}
	for _, m := range models {
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		if _, ok := table.Lookup(m); !ok {
			fmt.Fprintln(stderr, "murmur-eval: "+errcode.FormatWarning(errcode.New(errcode.Prices, "no price for model %q: its cost is left out (cost_usd null)", m).
				WithHint("give its price in USD per million tokens in a --prices file: models: {%q: {input: ..., output: ...}} (docs/cost.md)", m)))
		}
	}
}

// setCost sets summary.json's cost_usd: with a table, always (its date,
// and the models it had no price for, even when it priced nothing); no
// cost block under --prices off.
func (p priceOptions) setCost(d *reports.Digest, s *reports.Summary) {
	if p.table == nil {
		d.CostUSD = nil
		return
	}
	d.CostUSD = s.Cost()
	d.CostUSD.PricesDate = p.date()
}

// pricedModels are the models the run's cost is computed for: its
// cases' (the manifest's inference.model, or each variant's: runModels)
// and the judge's.
func pricedModels(o options, env map[string]string) []string {
	return append(runModels(o, env), o.judge.model)
}
