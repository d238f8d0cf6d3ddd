package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/scoring"
)

// MurmurDifferences counts a run's cases whose verdict differs from the one
// murmur's own rules would give them (scoring.CompareWithMurmur), by reason:
// what a team moving from mur eval run must expect to see change.
type MurmurDifferences struct {
	Cases   int                     `json:"cases"`
	Reasons []MurmurDifferenceCount `json:"reasons"`
}

// MurmurDifferenceCount is one reason (a scoring.Diff* key), how many cases
// it applies to, and the first of them by case_id and epoch.
type MurmurDifferenceCount struct {
	Reason string     `json:"reason"`
	Count  int        `json:"count"`
	First  CaseDigest `json:"first"`
}

// setMurmurView fills a results row's murmur_overall and murmur_difference
// columns from the case's scores, its status and its error code.
func setMurmurView(row *ResultRow, taskExit string, scores []scoring.Score) {
	o := scoring.MurmurOutcome{
		Scored:    row.Status == StatusPassed || row.Status == StatusFailed,
		Passed:    row.Status == StatusPassed,
		ErrorCode: deref(row.ErrorCode), ExitStatus: deref(row.ExitStatus), TaskExit: taskExit, Scores: scores,
	}
	v := scoring.CompareWithMurmur(o)
	if v.Overall != "" {
		row.MurmurOverall = &v.Overall
	}
	if v.Difference != "" {
		row.MurmurDifference = &v.Difference
	}
}

// murmurCounts counts the rows with a murmur_difference.
type murmurCounts map[string]*errorStat

func (m murmurCounts) add(r ResultRow, ref caseRef) {
	if r.MurmurDifference == nil {
		return
	}
	e := m[*r.MurmurDifference]
	if e == nil {
		e = &errorStat{first: ref}
		m[*r.MurmurDifference] = e
	} else if ref.before(e.first) {
		e.first = ref
	}
	e.count++
}

// digest returns the counts, most frequent reason first.
func (m murmurCounts) digest() MurmurDifferences {
	d := MurmurDifferences{Reasons: []MurmurDifferenceCount{}}
	for reason, e := range m {
		d.Cases += e.count
		d.Reasons = append(d.Reasons, MurmurDifferenceCount{Reason: reason, Count: e.count, First: e.first.digest()})
	}
	slices.SortFunc(d.Reasons, func(a, b MurmurDifferenceCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Reason, b.Reason))
	})
	return d
}

// murmurLine reads "murmur's rules would give 3 cases another verdict:
// no_scores 2, model_turn_error 1 (docs/murmur-compatibility.md)"; "" when
// none.
func (d *Digest) murmurLine() string {
	if d.MurmurDifferences.Cases == 0 {
		return ""
	}
	parts := make([]string, len(d.MurmurDifferences.Reasons))
	for i, r := range d.MurmurDifferences.Reasons {
		parts[i] = fmt.Sprintf("%s %d", clean(r.Reason), r.Count)
	}
	return fmt.Sprintf("murmur's rules would give %s another verdict: %s (docs/murmur-compatibility.md)",
		plural(d.MurmurDifferences.Cases, "case"), strings.Join(parts, ", "))
}
