package merge

import (
	"errors"
	"io"
	"path/filepath"
	"time"

	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// Output is the run folder merge writes.
type Output struct {
	Dir      string      // the folder, absolute
	Out      string      // the folder as given (-o), for the summary's paths
	RunID    string      // the merged run's id
	First    journal.Run // the first shard's run.json
	PassAt   []int
	Gates    gates.Options
	Baseline *reports.RunData
	Limits   reports.ReadLimits // for reading the merged run back
	// Planned is the (case, epoch) pairs of the whole run; Missing is set
	// when the shards do not cover it (--allow-missing).
	Planned int
	Missing bool
	Version string // murmur-eval's version, for run.json and the summary
}

// Writer writes a merged run folder whose files are open.
type Writer struct {
	m      Output
	jw     *journal.Writer
	sinks  *collect.Sinks
	scores *collect.ScoreSink
	failed error // a sink's failure
}

// Open opens the merged folder's journal and Parquet files; an error
// leaves nothing open.
func (m Output) Open() (*Writer, error) {
	w := &Writer{m: m}
	jw, _, err := journal.Open(filepath.Join(m.Dir, runfolder.JournalFile), nil)
	if err != nil {
		return nil, err
	}
	scores, err := collect.NewScoreSink(m.Dir)
	if err != nil {
		_ = jw.Close()
		return nil, err
	}
	sinks, err := collect.OpenSinks(m.Dir, func(err error) { w.failed = err })
	if err != nil {
		_ = scores.Sink.Abort()
		_ = jw.Close()
		return nil, err
	}
	scores.Start(func(error) {})
	w.jw, w.sinks, w.scores = jw, sinks, scores
	return w, nil
}

// Write writes the records (sorted by Combine) into the folder as the run
// command would have, with run.json and the report files, and applies the
// gates. The digest is the merged run's summary; err is any file that
// could not be written (then the verdict is empty).
func (w *Writer) Write(records []journal.Record, stderr io.Writer) (reports.Digest, gates.Verdict, error) {
	m := w.m
	defer w.jw.Close()
	parts := runfolder.WithoutShard(m.First.Config)
	parts[runfolder.ShardPart] = ""
	summary := &reports.Summary{}
	summary.SetPassAt(m.PassAt)
	summary.SetJudges(m.Gates.JudgeLabels, m.Gates.JudgeMinKappa)
	col := &collect.Collector{OutDir: m.Dir, Sinks: w.sinks, Scores: w.scores, Summary: summary, JUnit: &reports.JUnit{}, Stderr: stderr}
	var jerr error
	for _, r := range records {
		if jerr == nil {
			var e journal.Entry
			if e, jerr = r.Entry(); jerr == nil {
				jerr = w.jw.Append(e)
			}
		}
		col.Emit(r)
	}
	linkCases(m.Dir, records, stderr)
	err := errors.Join(w.sinks.Close(), w.scores.Close(), jerr, w.failed,
		journal.WriteRun(m.Dir, journal.Run{RunID: m.RunID, ConfigSHA256: journal.Fingerprint(parts), Config: parts, Inputs: m.First.Inputs, Version: m.Version}))
	d := summary.Digest(0)
	d.Version = m.Version
	d.Planned = max(m.Planned, d.Cases)
	d.Complete = !m.Missing
	if m.Missing {
		d.Stopped = reports.StoppedShardsMissing
	}
	end := collect.Ending{Dir: m.Dir, Out: m.Out, Baseline: m.Baseline, Limits: m.Limits, Gates: m.Gates, Started: time.Now()}
	_, v, ferr := end.Finish(&d, col.JUnit, err == nil)
	return d, v, errors.Join(err, ferr)
}
