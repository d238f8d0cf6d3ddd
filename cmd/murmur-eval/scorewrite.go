package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// scoreOutput is the re-scored run folder score writes, as merge writes a
// merged one: the same sinks, journal, report files and gates.
type scoreOutput struct {
	dir, out string // the folder, absolute and as given
	run      journal.Run
	passAt   []int
	gates    gates.Options
	baseline *reports.RunData
	limits   reports.ReadLimits
	// from is how far RUN got: a re-scoring of an interrupted run is
	// as incomplete as it.
	from    runState
	started time.Time
}

// runState is what summary.json says of how far a run got.
type runState struct {
	Planned  int    `json:"planned"`
	Complete bool   `json:"complete"`
	Stopped  string `json:"stopped"`
}

// maxSummaryBytes bounds reading RUN's summary.json.
const maxSummaryBytes = 64 << 20

// readRunState reads how far the run in dir got from its summary.json;
// a run without one (killed) got as far as its journal's records.
func readRunState(dir string, records int) runState {
	killed := runState{Planned: records, Stopped: reports.StoppedKilled}
	f, err := os.Open(filepath.Join(dir, collect.SummaryJSONFile))
	if err != nil {
		return killed
	}
	defer f.Close()
	var s runState
	if err := json.NewDecoder(io.LimitReader(f, maxSummaryBytes)).Decode(&s); err != nil {
		return killed
	}
	return s
}

// write writes records into the folder with its run.json, links each kept
// session folder under cases/, writes the report files and applies the
// gates. err is any file that could not be written (then the verdict is
// empty).
func (o scoreOutput) write(records []journal.Record, stderr io.Writer) (reports.Digest, gates.Verdict, error) {
	jw, _, err := journal.Open(filepath.Join(o.dir, runfolder.JournalFile), nil)
	if err != nil {
		return reports.Digest{}, gates.Verdict{}, err
	}
	defer jw.Close()
	scores, err := collect.NewScoreSink(o.dir)
	if err != nil {
		return reports.Digest{}, gates.Verdict{}, err
	}
	var failed error // set by a sink's goroutine, read after Close
	sinks, err := collect.OpenSinks(o.dir, func(err error) { failed = err })
	if err != nil {
		_ = scores.Sink.Abort()
		return reports.Digest{}, gates.Verdict{}, err
	}
	scores.Start(func(error) {})
	summary := &reports.Summary{}
	summary.SetPassAt(o.passAt)
	col := &collect.Collector{OutDir: o.dir, Sinks: sinks, Scores: scores, Summary: summary, JUnit: &reports.JUnit{}, Stderr: stderr}
	entries := make([]journal.Entry, 0, len(records))
	var jerr error
	for _, r := range records {
		e, err := r.Entry()
		jerr = errors.Join(jerr, err)
		entries = append(entries, e)
		col.Emit(r)
	}
	if jerr == nil {
		jerr = jw.AppendAll(entries)
	}
	linkScoredCases(o.dir, records, stderr)
	err = errors.Join(sinks.Close(), scores.Close(), jerr, failed, journal.WriteRun(o.dir, o.run))
	d := summary.Digest(time.Since(o.started))
	d.Version = o.run.Version
	d.Planned, d.Complete, d.Stopped = max(o.from.Planned, d.Cases), o.from.Complete, o.from.Stopped
	end := collect.Ending{Dir: o.dir, Out: o.out, Baseline: o.baseline, Limits: o.limits, Gates: o.gates, Started: o.started}
	_, v, ferr := end.Finish(&d, col.JUnit, err == nil)
	return d, v, errors.Join(err, ferr)
}

// linkScoredCases links each attempt's session folder (RUN's, a shard's,
// or the copy in dir) under dir's cases/ by case id, as a run links its
// own, so show --case and view find them. One link that cannot be made is
// said; the rows name every folder.
func linkScoredCases(dir string, records []journal.Record, stderr io.Writer) {
	if err := runfolder.LinkRecords(dir, records); err != nil {
		fmt.Fprintf(stderr, "murmur-eval score: warning: session folders are not linked by case id in %s/: %v\n", runfolder.CasesDir, err)
	}
}
