// Package collect is the one goroutine of a run that turns finished cases
// into rows, journals them (group commit: one fsync per batch), and feeds
// the run's output files: the Parquet sinks, each owned by a goroutine of
// its own (sinks.go), the summary and junit.xml (reportfiles.go).
package collect

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/progress"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Session folders kept at the end of each case (--keep-sessions).
const (
	KeepAll    = "all"
	KeepFailed = "failed"
	KeepNone   = "none"
)

// Collector is the one goroutine that turns finished cases into rows,
// journals them, feeds the sinks, the summary and the JUnit report, reports
// progress, prunes session folders and prints the first error of each code.
type Collector struct {
	OutDir  string
	Sinks   *Sinks
	Scores  *ScoreSink
	Summary *reports.Summary
	JUnit   *reports.JUnit
	Stderr  io.Writer // the first error of each code is printed here
	// CaseRun reads what a finished case's rows carry from its stages'
	// results (reports.CaseRun).
	CaseRun func(*pipeline.Case) reports.CaseRun
	// Printed holds the error codes already shown (the refusal printed
	// at preparation among them), so each is shown once.
	Printed map[string]bool

	Journal  *journal.Writer   // nil: nothing journaled
	Progress progress.Reporter // nil: no progress
	Keep     string            // --keep-sessions; "" keeps all
	// OnFail stops the run when the journal cannot be written: a case that
	// is not journaled would be lost to --resume.
	OnFail     func(error)
	journalErr error
	// unfinished counts the cases collected without their final verdict
	// (finished): --resume runs them again.
	unfinished int
	// records are the buffers the batch's journal records are encoded in,
	// one per place in the batch, reused from batch to batch.
	records [][]byte
}

// maxKeptRecord is the largest record buffer the collector keeps for the
// next batch.
const maxKeptRecord = 1 << 20

// maxBatch bounds the finished cases journaled with one fsync.
const maxBatch = 256

// Run collects the cases sent on done until it is closed.
func (col *Collector) Run(done <-chan *pipeline.Case) {
	if col.Printed == nil {
		col.Printed = map[string]bool{}
	}
	for c := range done {
		// Group commit: the cases that finished while the last fsync ran
		// are waiting on the channel; one fsync journals them all.
		batch := []*pipeline.Case{c}
	drain:
		for len(batch) < maxBatch {
			select {
			case more, ok := <-done:
				if !ok {
					break drain
				}
				batch = append(batch, more)
			default:
				break drain
			}
		}
		col.collect(batch)
	}
}

// collect journals a batch of finished cases, then emits them: no case
// reaches a sink before it is on disk.
func (col *Collector) collect(batch []*pipeline.Case) {
	recs := make([]journal.Record, len(batch))
	journaled := make([]bool, len(batch))
	var entries []journal.Entry
	for i, c := range batch {
		recs[i] = Record(c, col.OutDir, col.CaseRun)
		if !col.finished(c) {
			col.unfinished++
			continue
		}
		if col.Journal == nil || col.journalErr != nil {
			continue
		}
		if len(entries) == len(col.records) {
			col.records = append(col.records, nil)
		}
		e, err := recs[i].EntryIn(col.records[len(entries)])
		if cap(e.Record) <= maxKeptRecord {
			col.records[len(entries)] = e.Record[:0] // reused once the batch is written
		} else {
			col.records[len(entries)] = nil // e keeps the large one until the batch is written
		}
		if err != nil {
			col.fail(err)
			break
		}
		entries = append(entries, e)
		journaled[i] = true
	}
	if col.journalErr == nil && len(entries) > 0 {
		if err := col.Journal.AppendAll(entries); err != nil {
			col.fail(err)
		}
	}
	for i, c := range batch {
		rec := recs[i]
		col.Emit(rec)
		if col.Progress != nil {
			f := rec.Final().Result
			name := f.CaseID
			if f.Variant != nil {
				name += "@" + *f.Variant // a case's variants are told apart, as in cases/ and junit.xml
			}
			col.Progress.Done(name, int(f.Epoch), f.Status, time.Duration(f.DurationMS*float64(time.Millisecond)))
		}
		col.printFirstError(c)
		pruned := journaled[i] && col.journalErr == nil
		if pruned {
			col.prune(rec)
		}
		col.unlinkMissing(rec, pruned)
	}
}

// Unfinished is how many of the cases collected did not get their final
// verdict: cancelled by the interrupt, or in error because it cut their
// retries short or the model endpoint could not be reached. --resume runs
// them again. Call it after Run has returned.
func (col *Collector) Unfinished() int { return col.unfinished }

// Err is the journal's first failure, nil when every case it was given
// was journaled.
func (col *Collector) Err() error { return col.journalErr }

// Record is the journal record of a finished case: the rows of its earlier
// attempts and its last, each attempt's stage results read by runOf.
func Record(c *pipeline.Case, outDir string, runOf func(*pipeline.Case) reports.CaseRun) journal.Record {
	rec := journal.Record{Attempts: make([]journal.Attempt, 0, len(c.Earlier)+1)}
	for _, a := range c.Earlier {
		rec.Attempts = append(rec.Attempts, journal.NewAttempt(runOf(a), outDir))
	}
	rec.Attempts = append(rec.Attempts, journal.NewAttempt(runOf(c), outDir))
	return rec
}

// fail records the journal's first failure and stops the run.
func (col *Collector) fail(err error) {
	if col.journalErr == nil {
		col.journalErr = err
		col.OnFail(err)
	}
}

// finished reports whether a case has its final verdict, so that --resume
// does not run it again: not a case the interrupt cancelled, nor one in
// error whose retries the interrupt cut short.
func (col *Collector) finished(c *pipeline.Case) bool {
	switch c.Verdict().Status {
	case pipeline.StatusCancelled:
		return false
	case pipeline.StatusError:
		// The runner marks an error whose retries the interrupt cut short;
		// a case stopped by an unreachable endpoint is run again by
		// --resume once the endpoint answers.
		return !isCancelled(c) && !errcode.Is(c.Verdict().Err, errcode.EndpointUnreachable)
	}
	return true
}

// isCancelled tells whether the run was interrupted while c ran.
func isCancelled(c *pipeline.Case) bool {
	return c.EndCause != nil && errcode.Is(c.EndCause, errcode.Cancelled)
}

// Emit sends a record's rows to the sinks: every attempt's results and
// events, and the final attempt to the scores, summary and JUnit report.
func (col *Collector) Emit(rec journal.Record) {
	for _, a := range rec.Attempts {
		col.Sinks.results <- a.Result
		for _, e := range a.Events {
			col.Sinks.events <- e
		}
		for _, s := range a.Scores {
			col.Scores.rows <- s
		}
	}
	for _, a := range rec.Attempts[:len(rec.Attempts)-1] {
		col.Summary.AddEarlier(a.Result) // what a retried attempt spent
	}
	f := rec.Final()
	col.Summary.AddCase(f.Result, f.Scores)
	if calls := missingToolCalls(f.Events); len(calls) > 0 {
		col.Summary.AddMissingToolCalls(calls)
	}
	col.JUnit.Add(f.Result, f.Scores)
}

// prune removes the session folders --keep-sessions does not keep: none
// keeps no folder; failed keeps every attempt that did not pass.
func (col *Collector) prune(rec journal.Record) {
	for _, a := range rec.Attempts {
		if col.prunes(a.Result) {
			_ = os.RemoveAll(filepath.Join(col.OutDir, filepath.FromSlash(a.Result.SessionDir)))
		}
	}
}

// prunes reports whether --keep-sessions removes the session folder of an
// attempt with row r once its case is journaled.
func (col *Collector) prunes(r reports.ResultRow) bool {
	switch col.Keep {
	case "", KeepAll:
		return false
	case KeepNone:
		return true
	default:
		return r.Status == reports.StatusPassed
	}
}

// unlinkMissing removes the case links (runfolder.CasesDir) of the
// attempts that have no session folder: pruned (pruned says prune ran on
// rec), or never made (a case refused before it staged). An attempt
// whose Contain stage ran has its folder, and is not looked at: Contain
// runs only after Stage made the folder (contain.Decl requires it), and
// nothing but prune removes one; the look is a system call a case, as
// costly here as the case link it checks (BENCHMARKS.md, session 21).
func (col *Collector) unlinkMissing(rec journal.Record, pruned bool) {
	for _, a := range rec.Attempts {
		r := a.Result
		if r.ContainMS != nil && !(pruned && col.prunes(r)) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(col.OutDir, filepath.FromSlash(r.SessionDir))); errors.Is(err, fs.ErrNotExist) {
			runfolder.UnlinkCase(col.OutDir, r.CaseID, reports.VariantName(r.Variant), int(r.Epoch), int(r.Attempt))
		}
	}
}

func (col *Collector) printFirstError(c *pipeline.Case) {
	v := c.Verdict()
	// The code shown is the first in the error's chain, which may differ
	// from the verdict's (a case cancelled because the endpoint could not be
	// reached): each is shown once.
	if v.Err == nil || v.Code == "" || col.Printed[v.Code] || col.Printed[errcode.Code(v.Err)] {
		return
	}
	col.Printed[v.Code], col.Printed[errcode.Code(v.Err)] = true, true
	fmt.Fprintf(col.Stderr, "case %q: %s (stage %s)\n", c.ID, errcode.Format(v.Err), v.Stage)
}

// missingToolCalls counts a case's calls to tools the capsule does not
// provide (tool_call events with E-EVL-070), by tool name.
func missingToolCalls(events []reports.EventRow) map[string]int {
	var calls map[string]int
	for _, e := range events {
		if e.EventType != trace.TypeToolCall || e.ToolName == nil || !strings.Contains(e.EventJSON, errcode.ToolNotProvided) {
			continue
		}
		var ev struct {
			ErrorCode string `json:"error_code"`
		}
		if json.Unmarshal([]byte(e.EventJSON), &ev) != nil || ev.ErrorCode != errcode.ToolNotProvided {
			continue
		}
		if calls == nil {
			calls = map[string]int{}
		}
		calls[*e.ToolName]++
	}
	return calls
}
