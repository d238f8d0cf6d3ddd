package trend

import (
	"cmp"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// Run is one finished run, read back from its Parquet files.
type Run struct {
	// Index is the run's 1-based place in start order.
	Index int
	Path  string
	RunID string
	// Start is the earliest started_at of its cases: results.parquet has
	// no run-level start column, and the first case starts as the run does.
	// Zero for a run with no case.
	Start time.Time
	// Results holds the last attempt of each (case, epoch) only, as the
	// run's own summary and gates count them.
	Results []reports.ResultRow
	Scores  []reports.ScoreRow
	Digest  reports.Digest
	// config is run.json's fingerprint parts (what the run ran: its
	// dataset, its capsule); nil without a run.json.
	config map[string]string
}

// Data is the run as reports.Diff reads it.
func (r *Run) Data() *reports.RunData {
	return &reports.RunData{Path: r.Path, Results: r.Results, Scores: r.Scores}
}

// Label names the run on the page: "#3 2026-11-26 02:00".
func (r *Run) Label() string {
	if r.Start.IsZero() {
		return "#" + itoa(r.Index)
	}
	return "#" + itoa(r.Index) + " " + r.Start.UTC().Format("2006-01-02 15:04")
}

// Load is LoadLimited with reports.DefaultReadLimits.
func Load(paths []string) ([]*Run, error) { return LoadLimited(paths, reports.DefaultReadLimits()) }

// LoadLimited reads each path (a run folder or its results.parquet), each
// Parquet file bounded by lim (reports.ReadRunLimited), and returns the
// runs ordered by start time, then run id. A path that is not a run, or a
// scores file alone, is an error naming it.
func LoadLimited(paths []string, lim reports.ReadLimits) ([]*Run, error) {
	if len(paths) == 0 {
		return nil, errcode.New(errcode.Usage, "no run given").WithHint("murmur-eval report runs/* -o report.html")
	}
	runs := make([]*Run, 0, len(paths))
	for _, p := range paths {
		data, err := reports.ReadRunLimited(p, lim)
		if err != nil {
			return nil, err
		}
		if data.Results == nil {
			return nil, errcode.New(errcode.Usage, "%s is a scores file alone; a report needs the run's results.parquet", p)
		}
		runs = append(runs, newRun(p, data))
	}
	slices.SortStableFunc(runs, func(a, b *Run) int {
		return cmp.Or(a.Start.Compare(b.Start), strings.Compare(a.RunID, b.RunID))
	})
	for i, r := range runs {
		r.Index = i + 1
	}
	return runs, nil
}

func newRun(path string, data *reports.RunData) *Run {
	r := &Run{Path: path, Results: reports.FinalAttempts(data.Results), Scores: data.Scores}
	for _, row := range r.Results {
		if r.RunID == "" || row.RunID < r.RunID {
			r.RunID = row.RunID
		}
		if !row.StartedAt.IsZero() && (r.Start.IsZero() || row.StartedAt.Before(r.Start)) {
			r.Start = row.StartedAt
		}
	}
	r.Digest = data.Summary().Digest(0) // every attempt: the retried ones' spending counts in its cost
	recordedCompleteness(path, &r.Digest)
	r.config = recordedConfig(path)
	return r
}

// maxSummaryJSON bounds the summary.json read beside a run's Parquet files.
const maxSummaryJSON = 16 << 20

// recordedCompleteness copies from the run's summary.json, when it has
// one that records them, whether the run ran its whole plan: the Parquet
// files hold the rows of the cases that ran, not the ones that did not.
func recordedCompleteness(path string, d *reports.Digest) {
	dir := path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		dir = filepath.Dir(path)
	}
	f, err := os.Open(filepath.Join(dir, "summary.json"))
	if err != nil {
		return
	}
	defer f.Close()
	var rec reports.Digest
	if json.NewDecoder(io.LimitReader(f, maxSummaryJSON)).Decode(&rec) != nil || rec.Planned == 0 {
		return
	}
	d.Complete, d.Planned, d.Ran, d.Stopped, d.Resumed = rec.Complete, rec.Planned, rec.Ran, rec.Stopped, rec.Resumed
}
