package trend

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// Options decide what the findings call a regression, an outage and a
// flaky case.
type Options struct {
	// Alpha and MaxDropPP are the diff's (reports.DiffOptions).
	Alpha     float64
	MaxDropPP float64
	// OutageRate is the share of a run's cases in status error or timeout
	// from which the run is called a harness outage.
	OutageRate float64
	// FlakyFlips is the number of verdict flips from which a case is called
	// flaky.
	FlakyFlips int
}

// DefaultOptions are the command's defaults.
func DefaultOptions() Options {
	return Options{Alpha: 0.05, OutageRate: 0.2, FlakyFlips: 2}
}

// Report is everything the page shows.
type Report struct {
	Options Options
	Runs    []*Run // in start order; the last is the latest
	// Trends are the pass rates of the overall verdict, then of each scorer
	// by name, across the runs.
	Trends []Trend
	// Diff is the latest run against the previous one; nil with one run.
	Diff *reports.DiffReport
	// Grid has a row per case (and epoch) seen in any run, most flips first.
	Grid   []GridRow
	Stages []StageDist // the latest run's, Resolve to Report
	Tokens []CaseTokens
	// InputChanges are the runs of another dataset or capsule than the
	// run before them.
	InputChanges []InputChange
	Findings     []Finding
	// Pages, when set, gives the link (relative to the page) to a case's
	// page in the view site of run i (murmur-eval view), "" for none: the
	// grid's cells and the flips link there.
	Pages func(i int, caseID string) string
}

// Latest is the newest run; Previous the one before it (nil with one run).
func (r *Report) Latest() *Run { return r.Runs[len(r.Runs)-1] }

// Previous is the run before the latest; nil when there is one run.
func (r *Report) Previous() *Run {
	if len(r.Runs) < 2 {
		return nil
	}
	return r.Runs[len(r.Runs)-2]
}

// Trend is one scorer's pass rate in each run; a run where the scorer
// scored nothing has Total 0 and is drawn as a gap.
type Trend struct {
	Scorer string
	Rates  []reports.Rate // one per run
}

// GridRow is one case across the runs.
type GridRow struct {
	Key   reports.CaseKey
	Cells []string // the case's status in each run; "" where it did not run
	// Flips counts changes of verdict (passed ↔ failed) between the runs
	// where the case was scored; errors and timeouts are not verdicts, so a
	// harness outage makes no case flaky.
	Flips int
}

// Label names the case, "@variant" in runs with variants, with its epoch
// when the runs had several.
func (g GridRow) Label(multiEpoch bool) string {
	name := g.Key.CaseID
	if g.Key.Variant != "" {
		name += "@" + g.Key.Variant
	}
	if multiEpoch {
		return name + " #" + strconv.Itoa(int(g.Key.Epoch))
	}
	return name
}

// StageDist is the distribution of one stage's wall time over the latest
// run's cases where it ran.
type StageDist struct {
	Stage string
	N     int
	// Quantiles in milliseconds: Min, P25, P50, P75, P90, P99, Max.
	Min, P25, P50, P75, P90, P99, Max float64
}

// CaseTokens is one case's model tokens in the latest run.
type CaseTokens struct {
	Key           reports.CaseKey
	Status        string
	Input, Output int64
}

// Build computes the report over runs, which Load ordered; runs must not
// be empty.
func Build(runs []*Run, opt Options) *Report {
	r := &Report{Options: opt, Runs: runs}
	r.Trends = trends(runs)
	if prev := r.Previous(); prev != nil {
		r.Diff = reports.Diff(prev.Data(), r.Latest().Data(), reports.DiffOptions{Alpha: opt.Alpha, MaxDropPP: opt.MaxDropPP})
	}
	r.Grid = grid(runs)
	r.Stages = stages(r.Latest().Results)
	r.Tokens = tokens(r.Latest().Results)
	r.InputChanges = inputChanges(runs)
	r.Findings = findings(r)
	return r
}

// MultiEpoch tells whether any run repeated its cases.
func (r *Report) MultiEpoch() bool {
	return slices.ContainsFunc(r.Runs, func(run *Run) bool { return run.Digest.MultiEpoch })
}

func trends(runs []*Run) []Trend {
	byName := map[string][]reports.Rate{}
	var names []string
	for i, run := range runs {
		for _, s := range run.Digest.Scorers {
			if byName[s.Name] == nil {
				byName[s.Name] = make([]reports.Rate, len(runs))
				names = append(names, s.Name)
			}
			byName[s.Name][i] = s.Rate
		}
	}
	slices.Sort(names)
	overall := Trend{Scorer: reports.OverallScorer}
	for _, run := range runs {
		overall.Rates = append(overall.Rates, run.Digest.PassRate)
	}
	out := append([]Trend{overall}, variantTrends(runs)...)
	for _, n := range names {
		name := n
		if n == reports.OverallScorer { // as reports.Diff names it
			name += " (scorer)"
		}
		rates := byName[n]
		for i := range rates {
			if rates[i].Total == 0 {
				rates[i] = reports.NewRate(0, 0)
			}
		}
		out = append(out, Trend{Scorer: name, Rates: rates})
	}
	return out
}

func grid(runs []*Run) []GridRow {
	rows := map[reports.CaseKey]*GridRow{}
	for i, run := range runs {
		for _, res := range run.Results {
			k := res.Key()
			g := rows[k]
			if g == nil {
				g = &GridRow{Key: k, Cells: make([]string, len(runs))}
				rows[k] = g
			}
			g.Cells[i] = res.Status
		}
	}
	out := make([]GridRow, 0, len(rows))
	for _, g := range rows {
		last := ""
		for _, c := range g.Cells {
			if c != reports.StatusPassed && c != reports.StatusFailed {
				continue
			}
			if last != "" && c != last {
				g.Flips++
			}
			last = c
		}
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b GridRow) int {
		return cmp.Or(cmp.Compare(b.Flips, a.Flips), strings.Compare(a.Key.CaseID, b.Key.CaseID), cmp.Compare(a.Key.Epoch, b.Key.Epoch))
	})
	return out
}

// stages are the timing distributions of the results' <stage>_ms
// columns, in column order (execution order).
func stages(rows []reports.ResultRow) []StageDist {
	cols := reports.StageColumns()
	out := make([]StageDist, len(cols))
	for i, col := range cols {
		var v []float64
		for j := range rows {
			if ms := col.Of(&rows[j]); ms != nil {
				v = append(v, *ms)
			}
		}
		slices.Sort(v)
		out[i] = StageDist{Stage: col.Stage, N: len(v),
			Min: quantile(v, 0), P25: quantile(v, 0.25), P50: quantile(v, 0.5), P75: quantile(v, 0.75),
			P90: quantile(v, 0.9), P99: quantile(v, 0.99), Max: quantile(v, 1)}
	}
	return out
}

// quantile is the q-quantile of sorted by linear interpolation between
// closest ranks (DuckDB's quantile_cont, type 7); NaN when empty.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

func tokens(rows []reports.ResultRow) []CaseTokens {
	out := make([]CaseTokens, 0, len(rows))
	for _, row := range rows {
		out = append(out, CaseTokens{Key: row.Key(),
			Status: row.Status, Input: row.InputTokens, Output: row.OutputTokens})
	}
	slices.SortFunc(out, func(a, b CaseTokens) int {
		return cmp.Or(cmp.Compare(b.Input+b.Output, a.Input+a.Output),
			strings.Compare(a.Key.CaseID, b.Key.CaseID), cmp.Compare(a.Key.Epoch, b.Key.Epoch))
	})
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }
