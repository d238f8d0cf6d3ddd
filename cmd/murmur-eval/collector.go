package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/progress"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// collector is the one goroutine that turns finished cases into rows,
// journals them, feeds the sinks, the summary and the JUnit report, reports
// progress, prunes session folders and prints the first error of each code.
type collector struct {
	outDir  string
	sinks   *sinkSet
	scores  *scoreSink
	summary *reports.Summary
	junit   *reports.JUnit
	stderr  io.Writer
	// printed holds the error codes already shown (the refusal printed
	// at preparation among them), so each is shown once.
	printed map[string]bool

	journal  *journal.Writer   // nil: nothing journaled
	progress progress.Reporter // nil: no progress
	keep     string            // --keep-sessions; "" keeps all
	// onFail stops the run when the journal cannot be written: a case that
	// is not journaled would be lost to --resume.
	onFail     func(error)
	journalErr error
	// records are the buffers the batch's journal records are encoded in,
	// one per place in the batch, reused from batch to batch.
	records [][]byte
}

// maxKeptRecord is the largest record buffer the collector keeps for the
// next batch.
const maxKeptRecord = 1 << 20

// maxBatch bounds the finished cases journaled with one fsync.
const maxBatch = 256

func (col *collector) run(done <-chan *pipeline.Case) {
	if col.printed == nil {
		col.printed = map[string]bool{}
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
func (col *collector) collect(batch []*pipeline.Case) {
	recs := make([]caseRecord, len(batch))
	journaled := make([]bool, len(batch))
	var entries []journal.Entry
	for i, c := range batch {
		recs[i] = recordFromCase(c, col.outDir)
		if col.journal == nil || col.journalErr != nil || !col.finished(c) {
			continue
		}
		if len(entries) == len(col.records) {
			col.records = append(col.records, nil)
		}
		e, err := recs[i].entryIn(col.records[len(entries)])
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
		if err := col.journal.AppendAll(entries); err != nil {
			col.fail(err)
		}
	}
	for i, c := range batch {
		rec := recs[i]
		col.emit(rec)
		if col.progress != nil {
			f := rec.final().Result
			col.progress.Done(f.CaseID, int(f.Epoch), f.Status, time.Duration(f.DurationMS*float64(time.Millisecond)))
		}
		col.printFirstError(c)
		if journaled[i] && col.journalErr == nil {
			col.prune(rec)
		}
	}
}

// fail records the journal's first failure and stops the run.
func (col *collector) fail(err error) {
	if col.journalErr == nil {
		col.journalErr = err
		col.onFail(err)
	}
}

// finished reports whether a case has its final verdict, so that --resume
// does not run it again: not a case the interrupt cancelled, nor one in
// error whose retries the interrupt cut short.
func (col *collector) finished(c *pipeline.Case) bool {
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

// emit sends a record's rows to the sinks: every attempt's results and
// events, and the final attempt to the scores, summary and JUnit report.
func (col *collector) emit(rec caseRecord) {
	for _, a := range rec.Attempts {
		col.sinks.results <- a.Result
		for _, e := range a.Events {
			col.sinks.events <- e
		}
		for _, s := range a.Scores {
			col.scores.rows <- s
		}
	}
	f := rec.final()
	col.summary.AddCase(f.Result, f.Scores)
	if calls := missingToolCalls(f.Events); len(calls) > 0 {
		col.summary.AddMissingToolCalls(calls)
	}
	col.junit.Add(f.Result, f.Scores)
}

// prune removes the session folders --keep-sessions does not keep: none
// keeps no folder; failed keeps every attempt that did not pass.
func (col *collector) prune(rec caseRecord) {
	if col.keep == "" || col.keep == keepAll {
		return
	}
	for _, a := range rec.Attempts {
		if col.keep == keepNone || a.Result.Status == reports.StatusPassed {
			_ = os.RemoveAll(filepath.Join(col.outDir, filepath.FromSlash(a.Result.SessionDir)))
		}
	}
}

func (col *collector) printFirstError(c *pipeline.Case) {
	v := c.Verdict()
	// The code shown is the first in the error's chain, which may differ
	// from the verdict's (a case cancelled because the endpoint could not be
	// reached): each is shown once.
	if v.Err == nil || v.Code == "" || col.printed[v.Code] || col.printed[errcode.Code(v.Err)] {
		return
	}
	col.printed[v.Code], col.printed[errcode.Code(v.Err)] = true, true
	fmt.Fprintf(col.stderr, "case %q: %s (stage %s)\n", c.ID, errcode.Format(v.Err), v.Stage)
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
