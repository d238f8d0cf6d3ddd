package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// messageWidth caps the first error message shown per error code, in runes.
const messageWidth = 60

// reasonWidth caps a failed case's reasons in the terminal summary.
const reasonWidth = 100

// failedShown is how many failed cases the terminal summary lists.
const failedShown = 10

// OutputFile names a file the run wrote, for the summary's last lines.
type OutputFile struct {
	Label string // "results", "scores", ...
	Path  string
}

// WriteText writes the summary the run prints at its end (see
// Digest.WriteText) with the two Parquet files' paths; an empty path is left
// out. wall is the run's wall-clock time.
func (s *Summary) WriteText(w io.Writer, resultsPath, eventsPath string, wall time.Duration) error {
	d := s.Digest(wall)
	return d.WriteText(w, []OutputFile{{"results", resultsPath}, {"events", eventsPath}})
}

// WriteText writes the plain-text summary: a headline with the counts per
// status, the pass rate over both denominators, totals, the pass rate of
// each scorer, the failed cases with their reasons, one line per error code
// with its first case, the slowest cases, the gates, and the files written
// (those with a path). A write failure is returned with code errcode.IO.
func (d *Digest) WriteText(w io.Writer, files []OutputFile) error {
	var b strings.Builder
	d.writeHeadline(&b)
	d.writeSections(&b)
	writeFiles(&b, files)
	if _, err := io.WriteString(w, trimLines(b.String())); err != nil {
		return errcode.Wrap(errcode.IO, err, "write run summary")
	}
	return nil
}

// writeHeadline writes the summary's first lines: the counts by status,
// completeness, resumption, the pass rate, pass@k and the totals.
func (d *Digest) writeHeadline(b *strings.Builder) {
	fmt.Fprintf(b, "%s in %s", plural(d.Cases, "case"), formatDuration(msDuration(d.WallMS)))
	sep := ": "
	for _, st := range d.statuses() {
		fmt.Fprintf(b, "%s%d %s", sep, d.Statuses[st], clean(st))
		sep = ", "
	}
	b.WriteString("\n")
	if line := d.completenessLine(); line != "" {
		fmt.Fprintf(b, "%s\n", strings.ToUpper(line[:1])+line[1:])
	}
	if d.Resumed > 0 {
		fmt.Fprintf(b, "resumed: %d of the %s came from the journal of an earlier invocation\n", d.Resumed, plural(d.Cases, "case"))
	}
	if line := d.divergenceLine(); line != "" {
		fmt.Fprintf(b, "%s\n", line)
	}
	if line := d.ranDespiteLine(); line != "" {
		fmt.Fprintf(b, "%s\n", line)
	}
	if line := d.cacheLine(); line != "" {
		fmt.Fprintf(b, "%s\n", line)
	}
	if line := d.costLine(); line != "" {
		fmt.Fprintf(b, "%s\n", line)
	}
	for _, line := range d.connectionLines() {
		fmt.Fprintf(b, "%s\n", line)
	}
	for _, line := range d.missingToolLines() {
		fmt.Fprintf(b, "%s\n", line)
	}
	if d.Cases > 0 {
		fmt.Fprintf(b, "pass rate: %s\n", d.passRateLine())
	}
	for _, p := range d.PassAtK {
		fmt.Fprintf(b, "pass@%d: %s over %s", p.K, percent(p.Value), plural(p.Cases, "case"))
		if p.Excluded > 0 {
			fmt.Fprintf(b, " (%d with fewer than %d scored epochs left out)", p.Excluded, p.K)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "totals: %s, %s, %d input tokens, %d output tokens\n",
		plural(int(d.Totals.Turns), "turn"), plural(int(d.Totals.ToolCalls), "tool call"), d.Totals.InputTokens, d.Totals.OutputTokens)
	_ = writeVariants(b, d.Variants, d.VariantPairs, false) // a Builder takes every write
}

// writeSections writes the summary's sections that have content: the
// scorers, the failed cases, the errors, the slowest cases, the gates.
func (d *Digest) writeSections(b *strings.Builder) {
	if len(d.Scorers) > 0 {
		b.WriteString("\nscorers:\n")
		var nameW, countW int
		for _, sc := range d.Scorers {
			nameW = max(nameW, utf8.RuneCountInString(clean(sc.Name)))
			countW = max(countW, len(fmt.Sprintf("%d/%d", sc.Passed, sc.Total)))
		}
		for _, sc := range d.Scorers {
			name := clean(sc.Name)
			fmt.Fprintf(b, "  %s%s  %*s  %6s  %s\n", name, strings.Repeat(" ", nameW-utf8.RuneCountInString(name)),
				countW, fmt.Sprintf("%d/%d", sc.Passed, sc.Total), percent(sc.Rate.Rate), interval(sc.Rate))
		}
	}
	d.writeJudgesText(b)
	if len(d.Failed) > 0 {
		b.WriteString("\nfailed:\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for _, c := range d.Failed[:min(len(d.Failed), failedShown)] {
			fmt.Fprintf(tw, "  %s\t%s\n", d.name(c), truncate(clean(strings.Join(c.Reasons, "; ")), reasonWidth))
		}
		tw.Flush()
		if more := d.FailedAll - min(len(d.Failed), failedShown); more > 0 {
			fmt.Fprintf(b, "  ... and %d more\n", more)
		}
	}
	if len(d.Errors) > 0 {
		b.WriteString("\nerrors:\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for _, e := range d.Errors {
			fmt.Fprintf(tw, "  %s\t%d\tfirst %s\t%s\t%s\n", clean(e.Code), e.Count,
				d.name(e.First), clean(e.First.Stage), truncate(clean(e.First.Message), messageWidth))
		}
		tw.Flush()
	}
	if len(d.Slowest) > 0 {
		b.WriteString("\nslowest:\n")
		width := 0
		for _, c := range d.Slowest {
			width = max(width, utf8.RuneCountInString(formatDuration(msDuration(c.DurationMS))))
		}
		for _, c := range d.Slowest {
			fmt.Fprintf(b, "  %*s  %s\n", width, formatDuration(msDuration(c.DurationMS)), d.name(c))
		}
	}
	if len(d.Gates) > 0 {
		b.WriteString("\ngates:\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for _, g := range d.Gates {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", g.Gate, passedWord(g.Passed), clean(g.Detail))
		}
		tw.Flush()
		for _, g := range d.Gates {
			if g.Warning != "" {
				fmt.Fprintf(b, "  WARNING: %s\n", clean(g.Warning))
			}
		}
	}
}

// passRateLine reads "83.3% [55.2–95.3%] of 12 scored; 75.0% of 16 run;
// 4 errors or timeouts (25.0%)".
func (d *Digest) passRateLine() string {
	scored := "no case was scored"
	if d.PassRate.Total > 0 {
		scored = fmt.Sprintf("%s %s of %d scored", percent(d.PassRate.Rate), interval(d.PassRate), d.PassRate.Total)
	}
	return fmt.Sprintf("%s; %s of %d run; %s (%s)", scored, percent(d.PassRateAll.Rate), d.PassRateAll.Total,
		errorsOrTimeouts(d.Unscored, d.Statuses[StatusOverBudget]), percent(d.ErrorRate))
}

func writeFiles(b *strings.Builder, files []OutputFile) {
	var shown []OutputFile
	for _, f := range files {
		if f.Path != "" {
			shown = append(shown, f)
		}
	}
	if len(shown) == 0 {
		return
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 0, 1, ' ', 0)
	for _, f := range shown {
		fmt.Fprintf(tw, "%s:\t%s\n", f.Label, clean(f.Path))
	}
	tw.Flush()
}

// statuses returns the statuses with cases, known ones first.
func (d *Digest) statuses() []string {
	var out []string
	for _, st := range statusOrder() {
		if d.Statuses[st] > 0 {
			out = append(out, st)
		}
	}
	var other []string
	for st, n := range d.Statuses {
		if n > 0 && !slices.Contains(statusOrder(), st) {
			other = append(other, st)
		}
	}
	slices.Sort(other)
	return append(out, other...)
}

// name formats a case, with its epoch when the run has more than one.
func (d *Digest) name(c CaseDigest) string {
	if d.MultiEpoch {
		return fmt.Sprintf("%s epoch %d", clean(c.CaseID), c.Epoch)
	}
	return clean(c.CaseID)
}

func passedWord(ok bool) string {
	if ok {
		return "passed"
	}
	return "FAILED"
}

// percent formats a rate as "83.3%".
func percent(r float64) string { return fmt.Sprintf("%.1f%%", 100*r) }

// interval formats a rate's 95% interval as "[55.2–95.3%]", "[–]" when
// nothing was counted.
func interval(r Rate) string {
	if r.Total == 0 {
		return "[–]"
	}
	return fmt.Sprintf("[%.1f–%.1f%%]", 100*r.Low, 100*r.High)
}
