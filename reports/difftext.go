package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// listedCases is how many cases of each list the text diff shows.
const listedCases = 20

// WriteJSON writes the report as indented JSON.
func (r *DiffReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return errcode.Wrap(errcode.IO, err, "write diff")
	}
	return nil
}

// WriteText writes the report for a person: the two runs, one row per
// scorer (pass rates with 95% intervals, the change, the paired flips and
// McNemar's p), then the flipped cases and the cases of one run only.
func (r *DiffReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "base: %s (%s, %s)\n", orDash(clean(r.Base.RunID)), clean(r.Base.Path), plural(r.Base.Cases, "case"))
	fmt.Fprintf(&b, "head: %s (%s, %s)\n", orDash(clean(r.Head.RunID)), clean(r.Head.Path), plural(r.Head.Cases, "case"))
	fmt.Fprintf(&b, "a regression: on the paired cases, a drop of more than %g points with McNemar p < %g; %s\n\n", r.MaxDropPP, r.Alpha, r.DetectionText())

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scorer\tbase\thead\tchange\tpaired\tpass→fail\tfail→pass\tp\t")
	for _, s := range r.Scorers {
		verdict := ""
		if s.Regression {
			verdict = "REGRESSION"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", clean(s.Scorer), rateCell(s.Base), rateCell(s.Head),
			signedPP(s.ChangePP, s.Base.Total > 0 && s.Head.Total > 0), s.Paired, len(s.PassToFail), len(s.FailToPass), pValue(s.PValue), verdict)
	}
	_ = tw.Flush() // writes to a strings.Builder cannot fail

	for _, s := range r.Scorers {
		writeCases(&b, s.Scorer+": pass→fail", s.PassToFail)
		writeCases(&b, s.Scorer+": fail→pass", s.FailToPass)
		if s.Scorer != OverallScorer {
			continue // the case lists below cover overall's one-sided cases
		}
		writeCases(&b, s.Scorer+": scored in base only", s.OnlyBase)
		writeCases(&b, s.Scorer+": scored in head only", s.OnlyHead)
	}
	writeCases(&b, "only in base", r.OnlyBase)
	writeCases(&b, "only in head", r.OnlyHead)
	if len(r.Regressions) > 0 {
		fmt.Fprintf(&b, "\nregressed: %s\n", clean(strings.Join(r.Regressions, ", ")))
	} else {
		b.WriteString("\nno regression\n")
	}
	if w := r.DetectionWarning(); w != "" {
		fmt.Fprintf(&b, "WARNING: %s\n", clean(w))
	}
	if line := r.Cost.costText(); line != "" {
		fmt.Fprintf(&b, "%s\n", line)
	}
	if _, err := io.WriteString(w, trimLines(b.String())); err != nil {
		return errcode.Wrap(errcode.IO, err, "write diff")
	}
	return nil
}

func writeCases(b *strings.Builder, title string, keys []CaseKey) {
	if len(keys) == 0 {
		return
	}
	names := make([]string, 0, listedCases)
	for _, k := range keys[:min(len(keys), listedCases)] {
		names = append(names, k.String())
	}
	more := ""
	if len(keys) > listedCases {
		more = fmt.Sprintf(", ... and %d more", len(keys)-listedCases)
	}
	fmt.Fprintf(b, "\n%s (%d): %s%s\n", clean(title), len(keys), strings.Join(names, ", "), more)
}

// String formats the key as its case id, "@variant" in a run with
// variants, with "#epoch" past the first.
func (k CaseKey) String() string {
	s := clean(k.CaseID)
	if k.Variant != "" {
		s += "@" + clean(k.Variant)
	}
	if k.Epoch > 1 {
		return fmt.Sprintf("%s#%d", s, k.Epoch)
	}
	return s
}

func rateCell(r Rate) string {
	if r.Total == 0 {
		return "–"
	}
	return fmt.Sprintf("%s %s %d/%d", percent(r.Rate), interval(r), r.Passed, r.Total)
}

func signedPP(pp float64, both bool) string {
	if !both {
		return "–"
	}
	return fmt.Sprintf("%+.1fpp", pp)
}

func pValue(p float64) string {
	if p >= 0.001 {
		return fmt.Sprintf("%.3f", p)
	}
	return fmt.Sprintf("%.2g", p)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
