package collect

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/atomicfile"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// The report files of a run folder, besides the Parquet files.
const (
	SummaryJSONFile = "summary.json"
	SummaryMDFile   = "summary.md"
	JUnitFile       = "junit.xml"
)

// WriteReports writes summary.json, summary.md and junit.xml into the run
// folder, each under a temporary name renamed into place when complete.
func WriteReports(outDir string, d *reports.Digest, junit *reports.JUnit, started time.Time) error {
	return errors.Join(
		writeAtomic(filepath.Join(outDir, SummaryJSONFile), func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(d)
		}),
		writeAtomic(filepath.Join(outDir, SummaryMDFile), d.WriteMarkdown),
		writeAtomic(filepath.Join(outDir, JUnitFile), func(w io.Writer) error { return junit.Write(w, d, started) }),
		junit.Close(),
	)
}

// writeAtomic writes path through write whole or not at all
// (atomicfile), so a reader never sees half a file.
func writeAtomic(path string, write func(io.Writer) error) error {
	if _, err := atomicfile.Write(path, write); err != nil {
		return errcode.Wrap(errcode.IO, err, "write %s", path)
	}
	return nil
}

// ReadSummary reads the summary.json a run wrote, for show: the gates
// it applied, its baseline diff and its wall time are in no Parquet file.
// A run without one (interrupted before the end) yields nil.
func ReadSummary(dir string) *reports.Digest {
	data, err := os.ReadFile(filepath.Join(dir, SummaryJSONFile))
	if err != nil {
		return nil
	}
	var d reports.Digest
	if json.Unmarshal(data, &d) != nil {
		return nil
	}
	return &d
}

// ReadDigest is the digest of the finished run at path (its folder or its
// results.parquet), read within lim, as show prints it: the summary of its
// rows, with what only summary.json records (the gates, the baseline
// comparison, the wall time, the judges' calibration; and, from a murmur-eval that records them,
// completion, planned, ran, resumed, the version and the missing tools).
// Gates is never nil. A scores file alone is a usage error.
func ReadDigest(path string, lim reports.ReadLimits) (reports.Digest, error) {
	run, err := reports.ReadRunLimited(path, lim)
	if err == nil && run.Results == nil {
		err = errcode.New(errcode.Usage, "%s is a scores file alone; show needs the run's results.parquet", path)
	}
	if err != nil {
		return reports.Digest{}, err
	}
	d := run.Summary().Digest(0)
	dir := path
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	if recorded := ReadSummary(dir); recorded != nil {
		d.Gates, d.Baseline, d.WallMS = recorded.Gates, recorded.Baseline, recorded.WallMS
		if recorded.Judges != nil || recorded.JudgeLabels != nil { // calibrated against labels the Parquet files do not hold
			d.Judges, d.JudgeLabels, d.Gated = recorded.Judges, recorded.JudgeLabels, recorded.Gated
		}
		if recorded.Planned > 0 || recorded.Version != "" { // written by a murmur-eval that records them
			d.Complete, d.Planned, d.Ran, d.Stopped, d.Resumed = recorded.Complete, recorded.Planned, recorded.Ran, recorded.Stopped, recorded.Resumed
			d.Version = recorded.Version
			d.MissingTools = recorded.MissingTools // from events.parquet, which show does not read
			d.ResumeCommand = recorded.ResumeCommand
		}
	}
	if d.Gates == nil {
		d.Gates = []reports.GateResult{}
	}
	return d, nil
}
