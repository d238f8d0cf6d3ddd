package reports

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// OverallScorer is the diff's name for the cases' own verdicts (status
// passed or failed), as murmur's `mur eval diff` has an overall row.
const OverallScorer = "overall"

// CaseKey names one case of a run: its id and epoch.
type CaseKey struct {
	CaseID string `json:"case_id"`
	Epoch  int32  `json:"epoch"`
	// Variant is the row's variant, "" in a run without variants: a run
	// compared with another pairs a variant with the same-named one.
	Variant string `json:"variant,omitempty"`
}

// Key is the row's case, epoch and variant.
func (r ResultRow) Key() CaseKey { return CaseKey{r.CaseID, r.Epoch, deref(r.Variant)} }

// Key is the row's case, epoch and variant.
func (r ScoreRow) Key() CaseKey { return CaseKey{r.CaseID, r.Epoch, deref(r.Variant)} }

func (k CaseKey) compare(o CaseKey) int {
	return cmp.Or(strings.Compare(k.CaseID, o.CaseID), cmp.Compare(k.Epoch, o.Epoch), strings.Compare(k.Variant, o.Variant))
}

// DiffOptions decide what counts as a regression: on the cases scored in
// both runs, the pass rate dropped by more than MaxDropPP percentage points
// and McNemar's exact test gives p < Alpha.
type DiffOptions struct {
	Alpha     float64 // significance level, e.g. 0.05
	MaxDropPP float64 // tolerated drop, in percentage points
}

// RunRef names one side of a diff.
type RunRef struct {
	Path  string `json:"path"`
	RunID string `json:"run_id"`
	Cases int    `json:"cases"`
}

// DiffReport compares two runs scorer by scorer. Its JSON is what `diff
// --json` prints; field names are a contract, as in Digest.
type DiffReport struct {
	Base      RunRef       `json:"base"`
	Head      RunRef       `json:"head"`
	Alpha     float64      `json:"alpha"`
	MaxDropPP float64      `json:"max_drop_pp"`
	Scorers   []ScorerDiff `json:"scorers"` // overall first, then by name
	// OnlyBase and OnlyHead are the cases present in one run only: they are
	// listed, never silently dropped, and take no part in the pairing.
	OnlyBase    []CaseKey `json:"only_base"`
	OnlyHead    []CaseKey `json:"only_head"`
	Regressions []string  `json:"regressions"` // scorers that regressed
	// Detection is what the baseline gate can find: the overall
	// verdict's (diffdetect.go).
	Detection Detection `json:"detection"`
	// Cost is what each run cost and the change (costdiff.go); absent when
	// neither run has a cost.
	Cost *CostDiff `json:"cost,omitempty"`
}

// ScorerDiff is one scorer's comparison.
type ScorerDiff struct {
	Scorer string `json:"scorer"`
	// Base and Head are the pass rates over each run's own scored cases,
	// with 95% Wilson intervals; ChangePP is Head - Base in points.
	Base     Rate    `json:"base"`
	Head     Rate    `json:"head"`
	ChangePP float64 `json:"change_pp"`
	// Paired counts the cases scored by this scorer in both runs; the
	// flips and the test are over those.
	Paired         int       `json:"paired"`
	BothPass       int       `json:"both_pass"`
	BothFail       int       `json:"both_fail"`
	PassToFail     []CaseKey `json:"pass_to_fail"`
	FailToPass     []CaseKey `json:"fail_to_pass"`
	PairedChangePP float64   `json:"paired_change_pp"`
	PValue         float64   `json:"mcnemar_p"`
	// OnlyBase and OnlyHead are the cases this scorer scored in one run
	// only (absent from the other, or unscored there: an error, a timeout).
	OnlyBase   []CaseKey `json:"only_base"`
	OnlyHead   []CaseKey `json:"only_head"`
	Regression bool      `json:"regression"`
	// Detection is the smallest drop the test can find over Paired.
	Detection Detection `json:"detection"`
}

// Diff compares base with head.
func Diff(base, head *RunData, opt DiffOptions) *DiffReport {
	r := &DiffReport{
		Base: base.ref(), Head: head.ref(), Alpha: opt.Alpha, MaxDropPP: opt.MaxDropPP,
		Scorers: []ScorerDiff{}, Regressions: []string{},
	}
	bk, hk := base.caseKeys(), head.caseKeys()
	r.OnlyBase, r.OnlyHead = minus(bk, hk), minus(hk, bk)
	bo, ho := base.outcomes(), head.outcomes()
	names := slices.Sorted(maps.Keys(bo))
	for n := range ho {
		if _, ok := bo[n]; !ok {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		// overall first, then by name
		return cmp.Or(cmp.Compare(boolInt(a != OverallScorer), boolInt(b != OverallScorer)), strings.Compare(a, b))
	})
	for _, n := range names {
		d := diffScorer(n, bo[n], ho[n], opt)
		if d.Regression {
			r.Regressions = append(r.Regressions, n)
		}
		r.Scorers = append(r.Scorers, d)
	}
	r.Detection = r.gateDetection()
	r.Cost = costDiff(base, head)
	return r
}

func diffScorer(name string, base, head map[CaseKey]bool, opt DiffOptions) ScorerDiff {
	d := ScorerDiff{Scorer: name, Base: rateOf(base), Head: rateOf(head),
		PassToFail: []CaseKey{}, FailToPass: []CaseKey{}}
	d.ChangePP = 100 * (d.Head.Rate - d.Base.Rate)
	for k, b := range base {
		h, ok := head[k]
		if !ok {
			d.OnlyBase = append(d.OnlyBase, k)
			continue
		}
		d.Paired++
		switch {
		case b && h:
			d.BothPass++
		case !b && !h:
			d.BothFail++
		case b:
			d.PassToFail = append(d.PassToFail, k)
		default:
			d.FailToPass = append(d.FailToPass, k)
		}
	}
	for k := range head {
		if _, ok := base[k]; !ok {
			d.OnlyHead = append(d.OnlyHead, k)
		}
	}
	for _, list := range [][]CaseKey{d.PassToFail, d.FailToPass, d.OnlyBase, d.OnlyHead} {
		slices.SortFunc(list, CaseKey.compare)
	}
	d.OnlyBase, d.OnlyHead = nonNil(d.OnlyBase), nonNil(d.OnlyHead)
	b, c := len(d.PassToFail), len(d.FailToPass)
	d.PValue = McNemarExact(b, c)
	if d.Paired > 0 {
		d.PairedChangePP = 100 * float64(c-b) / float64(d.Paired)
	}
	d.Regression = b > c && -d.PairedChangePP > opt.MaxDropPP && d.PValue < opt.Alpha
	d.Detection = Detect(d.Paired, opt)
	return d
}

func rateOf(m map[CaseKey]bool) Rate {
	passed := 0
	for _, p := range m {
		if p {
			passed++
		}
	}
	return NewRate(passed, len(m))
}

// minus returns the keys of a not in b, sorted.
func minus(a, b map[CaseKey]bool) []CaseKey {
	out := []CaseKey{}
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, CaseKey.compare)
	return out
}

func nonNil(k []CaseKey) []CaseKey {
	if k == nil {
		return []CaseKey{}
	}
	return k
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
