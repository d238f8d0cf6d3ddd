package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// merged is the run folder merge writes.
type merged struct {
	outAbs, out string
	runID       string
	first       journal.Run // the first shard's run.json
	passAt      []int
	gates       gateOptions
	baseline    *reports.RunData
	limits      reports.ReadLimits // for reading the merged run back
	// planned is the (case, epoch) pairs of the whole run; missing is set
	// when the shards do not cover it (--allow-missing).
	planned int
	missing bool
}

// write writes the merged run folder from the records, as the run command
// would have, applies the gates, prints the summary and returns the exit
// code.
func (m merged) write(records []caseRecord, stdout, stderr io.Writer) int {
	parts := withoutShard(m.first.Config)
	parts[shardPart] = ""
	jw, _, err := journal.Open(filepath.Join(m.outAbs, journalFile), nil)
	if err != nil {
		return usageError(stderr, err)
	}
	defer jw.Close()
	var failed error
	scores, err := newScoreSink(m.outAbs)
	if err != nil {
		return usageError(stderr, err)
	}
	sinks, err := openSinks(m.outAbs, func(err error) { failed = err })
	if err != nil {
		_ = scores.sink.Abort()
		return usageError(stderr, err)
	}
	scores.start(func(error) {})
	summary := &reports.Summary{}
	summary.SetPassAt(m.passAt)
	col := &collector{outDir: m.outAbs, sinks: sinks, scores: scores, summary: summary, junit: &reports.JUnit{}, stderr: stderr}
	var jerr error
	for _, r := range records {
		if jerr == nil {
			var e journal.Entry
			if e, jerr = r.entry(); jerr == nil {
				jerr = jw.Append(e)
			}
		}
		col.emit(r)
	}
	err = errors.Join(sinks.close(), scores.close(), jerr, failed,
		journal.WriteRun(m.outAbs, journal.Run{RunID: m.runID, ConfigSHA256: journal.Fingerprint(parts), Config: parts, Inputs: m.first.Inputs, Version: buildVersion()}))
	d := summary.Digest(0)
	d.Version = buildVersion()
	d.Planned = max(m.planned, d.Cases)
	d.Complete = !m.missing
	if m.missing {
		d.Stopped = reports.StoppedShardsMissing
	}
	var v verdict
	if err == nil {
		var diff *reports.DiffReport
		if m.baseline != nil {
			head, rerr := reports.ReadRunLimited(m.outAbs, m.limits)
			if rerr != nil {
				err = rerr
			} else {
				diff = reports.Diff(m.baseline, head, m.gates.diffOptions())
				diff.Head.Path = m.out
				d.Baseline = diff
			}
		}
		v = evaluateGates(&d, m.gates, diff)
		d.Gates = v.gates
	}
	err = errors.Join(err, writeReports(m.outAbs, &d, col.junit, time.Now()))
	if err != nil {
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitFailure
	}
	files := []reports.OutputFile{{Label: "results", Path: filepath.Join(m.out, reports.ResultsFile)}}
	if err := d.WriteText(stdout, files); err != nil {
		return exitFailure
	}
	switch {
	case v.budgetExceeded:
		return exitErrorBudget
	case v.diverged:
		fmt.Fprintln(stderr, errcode.Format(divergedError(&d, m.gates)))
		return exitDiverged
	case v.gateFailed:
		return exitGateFailed
	}
	return exitOK
}
