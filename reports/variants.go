package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// VariantDigest is one variant of a run with variants (--models,
// --variants): its cases counted as the run's are.
type VariantDigest struct {
	Name string `json:"name"`
	// Model is the model its cases ran (the first row's).
	Model    string `json:"model,omitempty"`
	Cases    int    `json:"cases"`
	Passed   int    `json:"passed"`
	Failed   int    `json:"failed"`
	Unscored int    `json:"unscored"`
	// Ran is the cases that ran (not skipped or cancelled): Unscored over
	// Ran is the variant's error rate.
	Ran int `json:"ran"`
	// PassRate is passed over passed and failed, as the run's pass_rate.
	PassRate Rate  `json:"pass_rate"`
	Tokens   int64 `json:"tokens"`
	// CostUSD is the sum of its cases' cost_usd; null when none was
	// priced.
	CostUSD *float64 `json:"cost_usd"`
}

// VariantPair compares two variants on the (case, epoch) pairs both gave a
// verdict (passed or failed): Both passed in both, AOnly in A only, BOnly
// in B only; PValue is McNemar's exact test on AOnly and BOnly.
type VariantPair struct {
	A      string  `json:"a"`
	B      string  `json:"b"`
	Paired int     `json:"paired"`
	Both   int     `json:"both"`
	AOnly  int     `json:"a_only"`
	BOnly  int     `json:"b_only"`
	PValue float64 `json:"p_value"`
}

// variantTally counts a run's rows by variant; empty for a run without.
type variantTally struct {
	// order is the run's (SetVariants: given is true), else the variants
	// are listed by name (a run read back from its rows).
	given   bool
	order   []string
	by      map[string]*VariantDigest
	verdict map[CaseKey]map[string]bool // (case, epoch) -> variant -> passed
}

// SetVariants gives the run's variant names in their order (--models,
// --variants): the summary lists them so, and pairs each with the ones
// after it (A before B). A variant met only in the rows comes after them.
// Without it (a run read back from its Parquet files) the variants are in
// name order.
func (s *Summary) SetVariants(names []string) {
	s.variants.given = true
	for _, n := range names {
		if n != "" {
			s.variants.slot(n)
		}
	}
}

// slot returns the count of the variant named name, made on first use.
func (t *variantTally) slot(name string) *VariantDigest {
	if t.by == nil {
		t.by, t.verdict = map[string]*VariantDigest{}, map[CaseKey]map[string]bool{}
	}
	v := t.by[name]
	if v == nil {
		v = &VariantDigest{Name: name}
		t.by[name] = v
		t.order = append(t.order, name)
	}
	return v
}

// addEarlier adds what an earlier attempt of a retried case spent to its
// variant's cost, as the run's cost counts it (the case is the final
// attempt's add).
func (t *variantTally) addEarlier(r ResultRow) {
	if r.Variant == nil || r.CostUSD == nil {
		return
	}
	v := t.slot(*r.Variant)
	v.CostUSD = new(deref(v.CostUSD) + *r.CostUSD)
}

func (t *variantTally) add(r ResultRow) {
	if r.Variant == nil {
		return
	}
	name := *r.Variant
	v := t.slot(name)
	if v.Model == "" && r.Model != nil {
		v.Model = *r.Model
	}
	v.Cases++
	v.Tokens += r.InputTokens + r.OutputTokens
	if r.CostUSD != nil {
		v.CostUSD = new(deref(v.CostUSD) + *r.CostUSD)
	}
	switch r.Status {
	case StatusPassed, StatusFailed:
		if r.Status == StatusPassed {
			v.Passed++
		} else {
			v.Failed++
		}
		k := CaseKey{CaseID: r.CaseID, Epoch: r.Epoch}
		if t.verdict[k] == nil {
			t.verdict[k] = map[string]bool{}
		}
		t.verdict[k][name] = r.Status == StatusPassed
	case StatusSkipped, StatusCancelled:
	default: // error, timeout, over_budget: as Summary.Unscored
		v.Unscored++
	}
	if r.Status != StatusSkipped && r.Status != StatusCancelled {
		v.Ran++
	}
}

// digest is the variants in the order they first came, and every pair of
// them in that order; both nil for a run without variants.
func (t *variantTally) digest() ([]VariantDigest, []VariantPair) {
	if len(t.order) == 0 {
		return nil, nil
	}
	if !t.given {
		slices.Sort(t.order)
	}
	vs := make([]VariantDigest, len(t.order))
	for i, name := range t.order {
		vs[i] = *t.by[name]
		vs[i].PassRate = NewRate(vs[i].Passed, vs[i].Passed+vs[i].Failed)
	}
	var pairs []VariantPair
	for i, a := range t.order {
		for _, b := range t.order[i+1:] {
			p := VariantPair{A: a, B: b}
			for _, by := range t.verdict {
				pa, okA := by[a]
				pb, okB := by[b]
				if !okA || !okB {
					continue
				}
				p.Paired++
				switch {
				case pa && pb:
					p.Both++
				case pa:
					p.AOnly++
				case pb:
					p.BOnly++
				}
			}
			p.PValue = McNemarExact(p.AOnly, p.BOnly)
			pairs = append(pairs, p)
		}
	}
	return vs, pairs
}

// writeVariants writes the variants side by side, one line each, and
// their pairs, for the terminal and summary.md (markdown: a table).
func writeVariants(w io.Writer, vs []VariantDigest, pairs []VariantPair, markdown bool) error {
	if len(vs) == 0 {
		return nil
	}
	var b strings.Builder
	if markdown {
		b.WriteString("\n## Variants\n\n| variant | model | cases | passed | failed | unscored | pass rate (95% CI) | tokens | cost |\n|---|---|---:|---:|---:|---:|---|---:|---:|\n")
	} else {
		b.WriteString("\nvariants:\n")
	}
	for _, v := range vs {
		rate := fmt.Sprintf("%.1f%% %s", 100*v.PassRate.Rate, interval(v.PassRate))
		cost := "-"
		if v.CostUSD != nil {
			cost = Dollars(*v.CostUSD)
		}
		if markdown {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %s | %d | %s |\n", md(v.Name), md(v.Model), v.Cases, v.Passed, v.Failed, v.Unscored, rate, v.Tokens, cost)
			continue
		}
		fmt.Fprintf(&b, "  %-24s %d cases, %d passed, %d failed, %d unscored, pass rate %s, %d tokens, cost %s\n",
			clean(v.Name), v.Cases, v.Passed, v.Failed, v.Unscored, rate, v.Tokens, cost)
	}
	if len(pairs) > 0 && markdown {
		b.WriteString("\n| A | B | paired | both passed | A only | B only | McNemar p |\n|---|---|---:|---:|---:|---:|---:|\n")
	}
	for _, p := range pairs {
		if markdown {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %.4g |\n", md(p.A), md(p.B), p.Paired, p.Both, p.AOnly, p.BOnly, p.PValue)
			continue
		}
		fmt.Fprintf(&b, "  %s vs %s: %d paired, %d both passed, %d %s only, %d %s only, McNemar p=%.4g\n",
			clean(p.A), clean(p.B), p.Paired, p.Both, p.AOnly, clean(p.A), p.BOnly, clean(p.B), p.PValue)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// VariantRun is the rows of run's variant name, as a run of their own
// (the variant column cleared so they pair with another variant's by case
// and epoch): `diff --variant A --variant B RUN` compares two of them. ok
// is false when the run has no row of that variant.
func VariantRun(run *RunData, name string) (out *RunData, ok bool) {
	out = &RunData{Path: run.Path + " (variant " + name + ")"}
	for _, r := range run.Results {
		if VariantName(r.Variant) == name {
			r.Variant = nil
			out.Results = append(out.Results, r)
			ok = true
		}
	}
	for _, s := range run.Scores {
		if VariantName(s.Variant) == name {
			s.Variant = nil
			out.Scores = append(out.Scores, s)
			ok = true
		}
	}
	return out, ok
}
