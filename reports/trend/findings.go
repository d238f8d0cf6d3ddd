package trend

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// Finding kinds, for the page's classes and for tests.
const (
	KindRegression  = "regression"  // the latest run regressed against the previous one
	KindImprovement = "improvement" // it improved significantly
	KindChange      = "change"      // it changed, not significantly
	KindOutage      = "outage"      // a run had too many harness errors or timeouts
	KindErrors      = "errors"      // the latest run had some, under the outage rate
	KindOverBudget  = "over_budget" // the latest run had cases its --case-max-* limits ended
	KindFlaky       = "flaky"       // a case flipped verdict often
	KindIncomplete  = "incomplete"  // a run did not run its whole plan (interrupted, endpoint unreachable, shards missing)
	KindDiverged    = "diverged"    // a replayed run's requests differed from its recordings
	KindInputs      = "inputs"      // a run is of another dataset or capsule than the run before it
	KindSteady      = "steady"      // none of the above
)

// flakyListed is how many flaky cases get a sentence each.
const flakyListed = 5

// Finding is one plain sentence at the top of the page.
type Finding struct {
	Kind string
	Text string
}

// findings states what a reader should look at first: the latest run
// against the previous one, harness outages, flaky cases.
func findings(r *Report) []Finding {
	var out []Finding
	for _, c := range r.InputChanges {
		out = append(out, Finding{KindInputs, c.Text()})
	}
	if r.Diff != nil {
		out = append(out, latestFinding(r))
	}
	for _, run := range r.Runs {
		d := run.Digest
		if line := d.CompletenessLine(); line != "" {
			out = append(out, Finding{KindIncomplete, fmt.Sprintf("run %s: %s; its rates cover the cases that ran", runName(run), line)})
		}
		if line := d.DivergenceLine(); line != "" {
			out = append(out, Finding{KindDiverged, fmt.Sprintf("run %s: %s; their verdicts measure the recordings, not the capsule", runName(run), line)})
		}
		harness, rate := harnessFailures(d)
		switch {
		case harness > 0 && rate >= r.Options.OutageRate:
			out = append(out, Finding{KindOutage, fmt.Sprintf(
				"run %s: harness outage, %s error or timeout (%d of %d cases; %s), not counted as model failures",
				runName(run), pct(rate), harness, d.Cases, topErrors(d))})
		case harness > 0 && run == r.Latest():
			out = append(out, Finding{KindErrors, fmt.Sprintf(
				"latest run %s: %d of %d cases (%s) in error or timeout (%s)",
				runName(run), harness, d.Cases, pct(rate), topErrors(d))})
		}
		if over := d.Statuses[reports.StatusOverBudget]; over > 0 && run == r.Latest() {
			out = append(out, Finding{KindOverBudget, fmt.Sprintf(
				"latest run %s: %d of %d cases over budget (--case-max-tokens or --case-max-cost ended their loop), not scored",
				runName(run), over, d.Cases)})
		}
	}
	var flaky []GridRow
	for _, g := range r.Grid {
		if g.Flips >= r.Options.FlakyFlips && g.Flips > 0 {
			flaky = append(flaky, g)
		}
	}
	for i, g := range flaky {
		if i == flakyListed {
			out = append(out, Finding{KindFlaky, fmt.Sprintf("and %d more flaky cases (see the case grid)", len(flaky)-flakyListed)})
			break
		}
		out = append(out, Finding{KindFlaky, fmt.Sprintf("flaky: %s flipped %d times in %s (%s)",
			g.Label(r.MultiEpoch()), g.Flips, runsText(len(r.Runs)), cellLetters(g.Cells))})
	}
	if !hasKind(out, KindRegression, KindOutage, KindFlaky, KindIncomplete, KindDiverged) {
		l := r.Latest().Digest.PassRate
		out = append(out, Finding{KindSteady, fmt.Sprintf(
			"no regression, harness outage or flaky case across %s; latest pass rate %s (%d of %d scored)",
			runsText(len(r.Runs)), pct(l.Rate), l.Passed, l.Total)})
	}
	return out
}

// latestFinding compares the latest run with the previous one, overall; a
// regression of a scorer alone is named too.
func latestFinding(r *Report) Finding {
	d := r.Diff.Scorers[0] // overall comes first
	subject := fmt.Sprintf("latest run %s: pass rate", runName(r.Latest()))
	against := fmt.Sprintf("against run %s", runName(r.Previous()))
	test := fmt.Sprintf("%s, McNemar's exact test: %d pass→fail, %d fail→pass",
		pValue(d.PValue), len(d.PassToFail), len(d.FailToPass))
	var f Finding
	switch {
	case d.Regression:
		f = Finding{KindRegression, fmt.Sprintf("%s dropped from %s to %s %s (%s): a regression",
			subject, pct(d.Base.Rate), pct(d.Head.Rate), against, test)}
	case len(r.Diff.Regressions) > 0:
		f = Finding{KindRegression, fmt.Sprintf("%s went from %s to %s %s (%s); a scorer regressed",
			subject, pct(d.Base.Rate), pct(d.Head.Rate), against, test)}
	case d.PValue < r.Options.Alpha && len(d.FailToPass) > len(d.PassToFail):
		f = Finding{KindImprovement, fmt.Sprintf("%s rose from %s to %s %s (%s)",
			subject, pct(d.Base.Rate), pct(d.Head.Rate), against, test)}
	case d.Base.Rate == d.Head.Rate && d.PValue == 1:
		f = Finding{KindChange, fmt.Sprintf("%s unchanged at %s %s (%s)", subject, pct(d.Head.Rate), against, test)}
	default:
		f = Finding{KindChange, fmt.Sprintf("%s went from %s to %s %s (%s): not significant at α=%s",
			subject, pct(d.Base.Rate), pct(d.Head.Rate), against, test, strconv.FormatFloat(r.Options.Alpha, 'g', -1, 64))}
	}
	var scorers []string
	for _, n := range r.Diff.Regressions {
		if n != reports.OverallScorer {
			scorers = append(scorers, n)
		}
	}
	if len(scorers) > 0 {
		f.Text += "; regressed scorers: " + strings.Join(scorers, ", ")
	}
	return f.withDetection(r.Diff)
}

// withDetection adds to the comparison's finding, when its paired cases
// are too few to find a drop of --max-drop points or any drop, what it
// could find (reports.Detection): a steady line over 5 cases is no news.
func (f Finding) withDetection(d *reports.DiffReport) Finding {
	det := d.Detection
	alpha := strconv.FormatFloat(d.Alpha, 'g', -1, 64)
	switch {
	case !det.CanFire:
		f.Text += fmt.Sprintf("; with %d paired cases no drop could be significant at α=%s", det.Paired, alpha)
	case !det.Enforceable:
		f.Text += fmt.Sprintf("; with %d paired cases only a drop of %.1f points or more could be significant at α=%s, not one of --max-drop %g",
			det.Paired, *det.MinDetectableDropPP, alpha, d.MaxDropPP)
	}
	return f
}

func hasKind(fs []Finding, kinds ...string) bool {
	for _, f := range fs {
		for _, k := range kinds {
			if f.Kind == k {
				return true
			}
		}
	}
	return false
}

// runName is "#3 (run id, 2026-11-26 02:00 UTC)".
func runName(r *Run) string {
	if r.Start.IsZero() {
		return fmt.Sprintf("#%d (%s)", r.Index, r.RunID)
	}
	return fmt.Sprintf("#%d (%s, %s UTC)", r.Index, r.RunID, r.Start.UTC().Format("2006-01-02 15:04"))
}

// topErrors names the most common error codes of a run.
// harnessFailures is how many of a run's cases ended in error or timeout,
// and their share of the cases that ran: the digest's unscored cases and
// error rate without those over budget, which a limit of the user's ended
// and no outage explains.
func harnessFailures(d reports.Digest) (n int, rate float64) {
	n = d.Statuses[reports.StatusError] + d.Statuses[reports.StatusTimeout]
	if d.Unscored > 0 {
		rate = d.ErrorRate * float64(n) / float64(d.Unscored)
	}
	return n, rate
}

func topErrors(d reports.Digest) string {
	var parts []string
	for i, e := range d.Errors {
		if i == 3 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", e.Code, e.Count))
	}
	if len(parts) == 0 {
		return "no error code"
	}
	return strings.Join(parts, ", ")
}

// cellLetters writes a grid row as letters, one per run: P passed, F failed,
// E error, T timeout, B over_budget, C cancelled, - not run.
func cellLetters(cells []string) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(cellLetter(c))
	}
	return b.String()
}

func cellLetter(status string) string {
	switch status {
	case reports.StatusPassed:
		return "P"
	case reports.StatusFailed:
		return "F"
	case reports.StatusError:
		return "E"
	case reports.StatusTimeout:
		return "T"
	case reports.StatusOverBudget:
		return "B"
	case reports.StatusCancelled:
		return "C"
	case "":
		return "-"
	}
	return "?"
}

// pct formats a rate as a percentage with one decimal.
func pct(rate float64) string { return strconv.FormatFloat(100*rate, 'f', 1, 64) + "%" }

// pValue writes a p-value as "p=0.0078", with two significant digits, or
// "p<0.0001".
func pValue(p float64) string {
	if p < 0.0001 {
		return "p<0.0001"
	}
	return "p=" + strconv.FormatFloat(p, 'g', 2, 64)
}

func runsText(n int) string {
	if n == 1 {
		return "1 run"
	}
	return strconv.Itoa(n) + " runs"
}
