package reports

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
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

// murmurSentences says, for each reason a case's verdict differs from
// the one `mur eval run` would give, what murmur would do and why, in
// plain words, naming the first case; none when no case differs.
func (d *Digest) murmurSentences() []string {
	out := make([]string, 0, len(d.MurmurDifferences.Reasons))
	for _, r := range d.MurmurDifferences.Reasons {
		n := fmt.Sprintf("%d of these cases", r.Count)
		var s string
		switch r.Reason {
		case scoring.DiffExitOK:
			s = "mur eval run would mark " + n + " passed: its exit_ok scorer passes a case even when the session ended failed or ran out of turns, and murmur-eval's fails it"
		case scoring.DiffExpected:
			s = "mur eval run would mark " + n + " passed: it checks only the scorers murmur.yaml configures and ignores the dataset line's expected (result_contains, files, check), which failed them here"
		case scoring.DiffJudge:
			s = "mur eval run would mark " + n + " passed: it parses llm_judge scorers and scores nothing with them, and the judge model failed them here"
		case scoring.DiffNoScores:
			s = "mur eval run would give " + n + " no verdict (no_scores): murmur.yaml configures no scorer and murmur ignores the dataset line's expected; murmur-eval scored them by expected, or by whether the session ended ok"
		case scoring.DiffModelTurnError:
			s = "mur eval run would score " + n + ", errors here: a model turn failed (no usable answer from the provider), which murmur ends as a failed session and scores, while murmur-eval keeps them out of the pass rate as harness errors"
		default:
			s = fmt.Sprintf("mur eval run would give %s another verdict (%s)", n, clean(r.Reason))
		}
		out = append(out, fmt.Sprintf("%s (first: %s)", s, d.name(r.First)))
	}
	return out
}

// murmurHeadline introduces the sentences.
func (d *Digest) murmurHeadline() string {
	return fmt.Sprintf("murmur's own mur eval run would give %d of these cases another verdict; results.parquet's murmur_difference column names each",
		d.MurmurDifferences.Cases)
}

// WriteMurmurDifferences writes, for --murmur-differences, how the run's
// verdicts differ from the ones `mur eval run` would give, one plain
// sentence per reason; nothing when none differs.
func (d *Digest) WriteMurmurDifferences(w io.Writer) error {
	if d.MurmurDifferences.Cases == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ncompared with mur eval run: %s\n", d.murmurHeadline())
	for _, s := range d.murmurSentences() {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return errcode.Wrap(errcode.IO, err, "write run summary")
	}
	return nil
}

// writeMarkdownMurmur writes summary.md's last section: the same
// sentences, when a case differs.
func (d *Digest) writeMarkdownMurmur(b *strings.Builder) {
	if d.MurmurDifferences.Cases == 0 {
		return
	}
	fmt.Fprintf(b, "\n### Compared with `mur eval run`\n\n%s.\n\n", md(strings.ToUpper(d.murmurHeadline()[:1])+d.murmurHeadline()[1:]))
	for _, s := range d.murmurSentences() {
		fmt.Fprintf(b, "- %s.\n", md(s))
	}
}
