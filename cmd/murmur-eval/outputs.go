package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// The report files of a run folder, besides the Parquet files.
const (
	summaryJSONFile = "summary.json"
	summaryMDFile   = "summary.md"
	junitFile       = "junit.xml"
)

// scoreSink is scores.parquet, owned by one goroutine fed by its channel,
// like the two sinks of sinkSet.
type scoreSink struct {
	sink *reports.Sink[reports.ScoreRow]
	rows chan reports.ScoreRow
	wg   sync.WaitGroup
	err  error
}

// newScoreSink creates scores.parquet's temporary file; start runs it.
func newScoreSink(outDir string) (*scoreSink, error) {
	s, err := reports.NewSink[reports.ScoreRow](filepath.Join(outDir, reports.ScoresFile), reports.ScoresLayout())
	if err != nil {
		return nil, err
	}
	return &scoreSink{sink: s, rows: make(chan reports.ScoreRow, 256)}, nil
}

// start runs the sink's goroutine; onFail is called if it fails.
func (s *scoreSink) start(onFail func(error)) {
	s.wg.Go(func() { s.err = drainOnError(s.sink.Run(context.Background(), s.rows), s.rows, onFail) })
}

func (s *scoreSink) close() error {
	close(s.rows)
	s.wg.Wait()
	return s.err
}

// writeReports writes summary.json, summary.md and junit.xml into the run
// folder, each under a temporary name renamed into place when complete.
func writeReports(outDir string, d *reports.Digest, junit *reports.JUnit, started time.Time) error {
	return errors.Join(
		writeAtomic(filepath.Join(outDir, summaryJSONFile), func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(d)
		}),
		writeAtomic(filepath.Join(outDir, summaryMDFile), d.WriteMarkdown),
		writeAtomic(filepath.Join(outDir, junitFile), func(w io.Writer) error { return junit.Write(w, d, started) }),
		junit.Close(),
	)
}

// writeAtomic writes path through write into a temporary file in the same
// folder, then renames it into place, so a reader never sees half a file.
func writeAtomic(path string, write func(io.Writer) error) error {
	dir, name := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "create %s", path)
	}
	bw := bufio.NewWriter(tmp)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Chmod(0o644) // CreateTemp makes it 0600; reports are for everyone
	}
	if err == nil {
		err = tmp.Close()
	} else {
		_ = tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return errcode.Wrap(errcode.IO, err, "write %s", path)
	}
	return nil
}

// readSummaryJSON reads the summary.json a run wrote, for show: the gates
// it applied, its baseline diff and its wall time are in no Parquet file.
// A run without one (interrupted before the end) yields nil.
func readSummaryJSON(dir string) *reports.Digest {
	data, err := os.ReadFile(filepath.Join(dir, summaryJSONFile))
	if err != nil {
		return nil
	}
	var d reports.Digest
	if json.Unmarshal(data, &d) != nil {
		return nil
	}
	return &d
}
