package reports

import (
	"cmp"
	"fmt"
	"strings"
	"text/tabwriter"
)

// unmatchedShown is how many unmatched labels the terminal and Markdown
// summaries list (summary.json keeps unmatchedKept).
const unmatchedShown = 5

// writeJudgesText writes the terminal summary's judges section: each judge
// scorer's model, cases and calibration, calibrated or why not, and the
// labels that named what the run does not have.
func (d *Digest) writeJudgesText(b *strings.Builder) {
	if len(d.Judges) == 0 && d.JudgeLabels == nil {
		return
	}
	b.WriteString("\njudges:\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, j := range d.Judges {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", clean(j.Scorer), clean(cmp.Or(j.Model, "-")), plural(j.Cases, "case"),
			calibrationText(j.Calibration), judgeVerdict(j))
	}
	tw.Flush()
	for _, j := range d.Judges {
		if j.Split > 0 {
			fmt.Fprintf(b, "  %s: its %d samples disagreed on the verdict of %s (largest spread %.2f)\n",
				clean(j.Scorer), j.Samples, plural(j.Split, "case"), j.MaxSpread)
		}
	}
	if d.Gated != nil {
		fmt.Fprintf(b, "  --fail-under and --baseline leave out %s: %s\n", pluralWord(len(d.Gated.LeftOut), "the uncalibrated judge scorer"),
			clean(strings.Join(d.Gated.LeftOut, ", ")))
	}
	if l := d.JudgeLabels; l != nil && l.UnmatchedTotal > 0 {
		fmt.Fprintf(b, "  WARNING: %d of the %s in %s name a case, epoch or scorer the run does not have:\n",
			l.UnmatchedTotal, plural(l.Labels, "label"), clean(l.File))
		for _, u := range l.Unmatched[:min(len(l.Unmatched), unmatchedShown)] {
			fmt.Fprintf(b, "    %s\n", clean(u))
		}
		if more := l.UnmatchedTotal - min(len(l.Unmatched), unmatchedShown); more > 0 {
			fmt.Fprintf(b, "    ... and %d more (summary.json lists %d)\n", more, len(l.Unmatched))
		}
	}
}

// writeJudgesMarkdown writes summary.md's judges section.
func (d *Digest) writeJudgesMarkdown(b *strings.Builder) {
	if len(d.Judges) == 0 && d.JudgeLabels == nil {
		return
	}
	b.WriteString("\n### Judges\n\n")
	if len(d.Judges) > 0 {
		b.WriteString("| scorer | model | cases | labelled | agreement | kappa | TPR | TNR | gates |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n")
		for _, j := range d.Judges {
			c := j.Calibration
			n, agreement := "0", "–"
			if c != nil {
				n, agreement = fmt.Sprint(c.N), percent(c.Agreement)
			}
			verdict := "✅ calibrated"
			if !j.Calibrated {
				verdict = "⚠️ uncalibrated: " + md(j.Uncalibrated) + "; left out"
			}
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", md(j.Scorer), md(cmp.Or(j.Model, "–")), j.Cases, n, agreement,
				optKappa(c, func(c *Calibration) *float64 { return c.Kappa }), optRate(c, func(c *Calibration) *float64 { return c.TPR }),
				optRate(c, func(c *Calibration) *float64 { return c.TNR }), verdict)
		}
		for _, j := range d.Judges {
			if j.Split > 0 {
				fmt.Fprintf(b, "\n%s: its %d samples disagreed on the verdict of %s (largest spread %.2f).\n", md(j.Scorer), j.Samples, plural(j.Split, "case"), j.MaxSpread)
			}
		}
		b.WriteString("\nTPR is the judge's pass among the cases people passed, TNR its fail among those they failed. " +
			"An uncalibrated judge's scores are reported and count in the cases' statuses, but not toward `--fail-under` or `--baseline`.\n")
	}
	if l := d.JudgeLabels; l != nil && l.UnmatchedTotal > 0 {
		fmt.Fprintf(b, "\n> ⚠️ **%d of the %s in %s name a case, epoch or scorer the run does not have**: %s",
			l.UnmatchedTotal, plural(l.Labels, "label"), md(l.File), md(strings.Join(l.Unmatched[:min(len(l.Unmatched), unmatchedShown)], "; ")))
		if l.UnmatchedTotal > unmatchedShown {
			b.WriteString(" …")
		}
		b.WriteString("\n")
	}
}

// calibrationText reads "n=30 agreement 86.7% kappa 0.72 TPR 90.0% TNR
// 80.0%", "no labelled case" without a calibration.
func calibrationText(c *Calibration) string {
	if c == nil {
		return "no labelled case"
	}
	return fmt.Sprintf("n=%d agreement %s kappa %s TPR %s TNR %s", c.N, percent(c.Agreement),
		optKappa(c, func(c *Calibration) *float64 { return c.Kappa }),
		optRate(c, func(c *Calibration) *float64 { return c.TPR }), optRate(c, func(c *Calibration) *float64 { return c.TNR }))
}

// judgeVerdict reads "calibrated (kappa >= 0.6)" or "uncalibrated: why".
func judgeVerdict(j JudgeDigest) string {
	if j.Calibrated {
		return fmt.Sprintf("calibrated (kappa >= %g)", j.MinKappa)
	}
	return "uncalibrated: " + clean(j.Uncalibrated)
}

// optKappa is a calibration's kappa with two decimals, "–" when undefined.
func optKappa(c *Calibration, get func(*Calibration) *float64) string {
	if c == nil || get(c) == nil {
		return "–"
	}
	return formatKappa(*get(c))
}

// optRate is a calibration's rate as a percentage, "–" when undefined.
func optRate(c *Calibration, get func(*Calibration) *float64) string {
	if c == nil || get(c) == nil {
		return "–"
	}
	return percent(*get(c))
}
