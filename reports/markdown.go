package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// mdListed is how many failed cases and flips the Markdown summary lists.
const mdListed = 20

// WriteMarkdown writes the summary as GitHub-flavoured Markdown, fit for
// $GITHUB_STEP_SUMMARY or a merge-request comment: the headline, the pass
// rate over both denominators, a table of scorers with their intervals, the
// gates, the failed cases and why, errors, the slowest cases, when the
// run had a baseline, the comparison and, when a case's verdict differs
// from the one `mur eval run` would give, why, in plain words.
func (d *Digest) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	title := "murmur-eval"
	if d.Capsule.Name != "" {
		title += ": " + md(d.Capsule.Name) + " " + md(d.Capsule.Version)
	}
	fmt.Fprintf(&b, "## %s\n\n", title)
	var counts []string
	for _, st := range d.statuses() {
		counts = append(counts, fmt.Sprintf("%d %s", d.Statuses[st], md(st)))
	}
	fmt.Fprintf(&b, "Run `%s`: **%s** in %s: %s.\n\n", strings.ReplaceAll(d.RunID, "`", ""), plural(d.Cases, "case"),
		formatDuration(msDuration(d.WallMS)), strings.Join(counts, ", "))
	d.writeCompleteness(&b)
	if d.Resumed > 0 {
		fmt.Fprintf(&b, "Resumed: %d of the %s came from the journal of an earlier invocation.\n\n", d.Resumed, plural(d.Cases, "case"))
	}
	if line := d.divergenceLine(); line != "" {
		fmt.Fprintf(&b, "> **%s.** Their verdicts measure the recordings, not the capsule.\n\n", md(strings.ToUpper(line[:1])+line[1:]))
	}
	if line := d.ranDespiteLine(); line != "" {
		fmt.Fprintf(&b, "> **%s.**\n\n", md(strings.ToUpper(line[:1])+line[1:]))
	}
	for _, line := range d.missingToolLines() {
		fmt.Fprintf(&b, "> **%s.**\n\n", md(strings.ToUpper(line[:1])+line[1:]))
	}
	for _, line := range d.connectionLines() {
		fmt.Fprintf(&b, "%s.\n\n", md(strings.ToUpper(line[:1])+line[1:]))
	}
	if d.PassRate.Total > 0 {
		fmt.Fprintf(&b, "**Pass rate %s** (95%% CI %s) of %d scored cases; ", percent(d.PassRate.Rate), ciText(d.PassRate), d.PassRate.Total)
	} else {
		b.WriteString("**No case was scored**; ")
	}
	fmt.Fprintf(&b, "%s of all %d cases run; %s (%s).\n",
		percent(d.PassRateAll.Rate), d.PassRateAll.Total, errorsOrTimeouts(d.Unscored, d.Statuses[StatusOverBudget]), percent(d.ErrorRate))
	fmt.Fprintf(&b, "\nTotals: %s, %s, %d input tokens, %d output tokens.\n",
		plural(int(d.Totals.Turns), "turn"), plural(int(d.Totals.ToolCalls), "tool call"), d.Totals.InputTokens, d.Totals.OutputTokens)
	d.writeCostAndVariantsMarkdown(&b)

	if len(d.Scorers) > 0 {
		b.WriteString("\n| scorer | type | passed | rate | 95% CI |\n|---|---|---:|---:|---|\n")
		for _, s := range d.Scorers {
			fmt.Fprintf(&b, "| %s | %s | %d/%d | %s | %s |\n", md(s.Name), md(s.Type), s.Passed, s.Total, percent(s.Rate.Rate), ciText(s.Rate))
		}
	}
	d.writeJudgesMarkdown(&b)
	if len(d.Gates) > 0 {
		b.WriteString("\n### Gates\n\n| gate | result | detail |\n|---|---|---|\n")
		for _, g := range d.Gates {
			mark := "✅ passed"
			if !g.Passed {
				mark = "❌ failed"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", md(g.Gate), mark, md(g.Detail))
		}
		for _, g := range d.Gates {
			if g.Warning != "" {
				fmt.Fprintf(&b, "\n> ⚠️ **%s.**\n", md(strings.ToUpper(g.Warning[:1])+g.Warning[1:]))
			}
		}
	}
	if len(d.Failed) > 0 {
		fmt.Fprintf(&b, "\n### Failed cases (%d)\n\n| case | why |\n|---|---|\n", d.FailedAll)
		for _, c := range d.Failed[:min(len(d.Failed), mdListed)] {
			fmt.Fprintf(&b, "| %s | %s |\n", md(d.name(c)), md(truncate(strings.Join(c.Reasons, "; "), 300)))
		}
		if more := d.FailedAll - min(len(d.Failed), mdListed); more > 0 {
			fmt.Fprintf(&b, "\n… and %d more (scores.parquet has every reason).\n", more)
		}
	}
	if len(d.Errors) > 0 {
		b.WriteString("\n### Errors (not counted as model failures)\n\n| code | cases | first case | stage | message |\n|---|---:|---|---|---|\n")
		for _, e := range d.Errors {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", md(e.Code), e.Count, md(d.name(e.First)), md(e.First.Stage), md(truncate(e.First.Message, 200)))
		}
	}
	if len(d.Slowest) > 0 {
		b.WriteString("\n### Slowest cases\n\n| case | duration | status |\n|---|---:|---|\n")
		for _, c := range d.Slowest {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", md(d.name(c)), formatDuration(msDuration(c.DurationMS)), md(c.Status))
		}
	}
	if d.Baseline != nil {
		writeMarkdownDiff(&b, d.Baseline)
	}
	d.writeMarkdownMurmur(&b)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return errcode.Wrap(errcode.IO, err, "write Markdown summary")
	}
	return nil
}

func writeMarkdownDiff(b *strings.Builder, r *DiffReport) {
	fmt.Fprintf(b, "\n### Compared with the baseline `%s`\n\n", strings.ReplaceAll(r.Base.RunID, "`", ""))
	fmt.Fprintf(b, "A regression is a drop of more than %g points on the paired cases with McNemar p < %g; %s.\n\n", r.MaxDropPP, r.Alpha, md(r.DetectionText()))
	b.WriteString("| scorer | base | head | change | paired | pass→fail | fail→pass | p | |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range r.Scorers {
		verdict := ""
		if s.Regression {
			verdict = "❌ regression"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %d | %d | %s | %s |\n", md(s.Scorer), md(rateCell(s.Base)), md(rateCell(s.Head)),
			signedPP(s.ChangePP, s.Base.Total > 0 && s.Head.Total > 0), s.Paired, len(s.PassToFail), len(s.FailToPass), pValue(s.PValue), verdict)
	}
	for _, s := range r.Scorers {
		if s.Scorer == OverallScorer && len(s.PassToFail) > 0 {
			names := make([]string, 0, mdListed)
			for _, k := range s.PassToFail[:min(len(s.PassToFail), mdListed)] {
				names = append(names, md(k.String()))
			}
			fmt.Fprintf(b, "\nPassed in the baseline, failed now (%d): %s\n", len(s.PassToFail), strings.Join(names, ", "))
		}
	}
	if n := len(r.OnlyBase) + len(r.OnlyHead); n > 0 {
		fmt.Fprintf(b, "\n%d cases are in the baseline only, %d in this run only.\n", len(r.OnlyBase), len(r.OnlyHead))
	}
}

// ciText formats a 95% interval as "55.2–95.3%".
func ciText(r Rate) string { return fmt.Sprintf("%.1f–%.1f%%", 100*r.Low, 100*r.High) }

// md makes s safe inside a Markdown table cell: one line, no pipes, no
// emphasis, links or HTML.
var mdReplacer = strings.NewReplacer( //nolint:gochecknoglobals // a read-only replacer (safe for concurrent use)
	`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "#", `\#`,
	"<", "&lt;", ">", "&gt;", "\r\n", " ", "\n", " ", "\r", " ",
)

func md(s string) string { return mdReplacer.Replace(clean(s)) }

// writeCompleteness writes why the run did not run every case it
// planned, and the command that runs the rest; nothing for a complete run.
func (d *Digest) writeCompleteness(b *strings.Builder) {
	line := d.completenessLine()
	if line == "" {
		return
	}
	fmt.Fprintf(b, "> **%s.**", md(strings.ToUpper(line[:1])+line[1:]))
	switch {
	case d.resumable() && d.ResumeCommand != "":
		fmt.Fprintf(b, " Run the rest with:\n\n```sh\n%s\n```", strings.ReplaceAll(d.ResumeCommand, "```", ""))
	case d.resumable():
		b.WriteString(" `murmur-eval --resume` runs the rest.")
	}
	b.WriteString("\n\n")
}

// resumable reports whether the run stopped in a way --resume finishes:
// interrupted, its endpoint unreachable, its --max-cost spent.
func (d *Digest) resumable() bool {
	return d.Stopped == StoppedInterrupted || d.Stopped == StoppedEndpoint || d.Stopped == StoppedBudget
}

// writeCostAndVariantsMarkdown writes the cost line and, in a run with
// variants, their table and pairs.
func (d *Digest) writeCostAndVariantsMarkdown(b *strings.Builder) {
	if line := d.costLine(); line != "" {
		fmt.Fprintf(b, "\n%s.\n", md("C"+line[1:]))
	}
	_ = writeVariants(b, d.Variants, d.VariantPairs, true) // a Builder takes every write
}
