package reports

import (
	"cmp"
	"slices"
	"strings"
)

// passCount is one case's verdicts across its epochs.
type passCount struct {
	epochs int // epochs that ran, whatever their status
	scored int // epochs passed or failed
	passed int
}

// PassAtK is the unbiased estimate of pass@k (Chen et al. 2021, "Evaluating
// Large Language Models Trained on Code"): the mean over cases of
// 1 - C(n-c, k) / C(n, k), where n is a case's scored epochs and c its
// passed ones. Cases with fewer than k scored epochs are left out and
// counted in Excluded, so errors and timeouts never count as failures.
type PassAtK struct {
	K        int     `json:"k"`
	Value    float64 `json:"value"`
	Cases    int     `json:"cases"`    // the cases averaged
	Excluded int     `json:"excluded"` // cases with fewer than k scored epochs
}

// CasePasses is one case's pass count across its epochs.
type CasePasses struct {
	CaseID string `json:"case_id"`
	// Variant is the case's variant in a run with variants (each variant
	// of a case counts apart); "" and left out without.
	Variant string `json:"variant,omitempty"`
	Epochs  int    `json:"epochs"`
	Scored  int    `json:"scored"`
	Passed  int    `json:"passed"`
}

// SetPassAt sets the k values of pass@k the digest reports (--pass-at).
func (s *Summary) SetPassAt(ks []int) { s.passAt = slices.Clone(ks) }

// SetEpochs tells the summary the run's epochs per case. With one epoch
// and no pass@k asked for, it keeps no per-case pass counts: the digest
// would show none of them (a single-epoch run's statuses say it all), and
// a map entry per case is the summary's one cost that grows with the run.
// Without SetEpochs the counts are kept (a merge of shards).
func (s *Summary) SetEpochs(n int) { s.epochs = n }

// passKey is what pass@k counts epochs of: a case, of a variant ("" in a
// run without variants).
type passKey struct{ caseID, variant string }

// countPass adds one final-attempt row to its case's pass count.
func (s *Summary) countPass(r ResultRow) {
	if s.epochs == 1 && len(s.passAt) == 0 && r.Epoch <= 1 {
		return
	}
	if s.perCase == nil {
		s.perCase = map[passKey]passCount{}
	}
	key := passKey{r.CaseID, VariantName(r.Variant)}
	// Held by value: one pointer less to allocate and keep per case.
	pc := s.perCase[key]
	defer func() { s.perCase[key] = pc }()
	if r.Status == StatusSkipped {
		return
	}
	pc.epochs++
	switch r.Status {
	case StatusPassed:
		pc.scored++
		pc.passed++
	case StatusFailed:
		pc.scored++
	}
}

// passAtK computes the pass@k estimates asked for with SetPassAt.
func (s *Summary) passAtK() []PassAtK {
	out := []PassAtK{}
	for _, k := range s.passAt {
		p := PassAtK{K: k}
		sum := 0.0
		for _, pc := range s.perCase {
			if pc.scored < k || k < 1 {
				p.Excluded++
				continue
			}
			p.Cases++
			sum += UnbiasedPassAtK(pc.scored, pc.passed, k)
		}
		if p.Cases > 0 {
			p.Value = sum / float64(p.Cases)
		}
		out = append(out, p)
	}
	return out
}

// casePasses lists every case's pass count by case_id; nil for a
// single-epoch run, where status says it all.
func (s *Summary) casePasses() []CasePasses {
	if !s.multiEpoch {
		return nil
	}
	out := make([]CasePasses, 0, len(s.perCase))
	for k, pc := range s.perCase {
		out = append(out, CasePasses{CaseID: k.caseID, Variant: k.variant, Epochs: pc.epochs, Scored: pc.scored, Passed: pc.passed})
	}
	slices.SortFunc(out, func(a, b CasePasses) int {
		return cmp.Or(strings.Compare(a.CaseID, b.CaseID), strings.Compare(a.Variant, b.Variant))
	})
	return out
}

// UnbiasedPassAtK is 1 - C(n-c, k)/C(n, k) for n samples of which c passed,
// computed as a running product so large n does not overflow.
func UnbiasedPassAtK(n, c, k int) float64 {
	if n-c < k {
		return 1
	}
	prod := 1.0
	for i := n - c + 1; i <= n; i++ {
		prod *= 1 - float64(k)/float64(i)
	}
	return 1 - prod
}
