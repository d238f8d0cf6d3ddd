package main

import (
	"encoding/json"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// caseRecord is what the journal keeps of one finished (case, epoch): the
// rows of every attempt, the last one final. It carries the events too, so a
// resumed or merged run rebuilds events.parquet even when --keep-sessions
// removed the session folders (RATIONALE.md, "Why does the journal carry
// the events?").
type caseRecord struct {
	Attempts []attemptRows `json:"attempts"`
}

// attemptRows are the rows of one attempt of a case.
type attemptRows struct {
	Result reports.ResultRow  `json:"result"`
	Scores []reports.ScoreRow `json:"scores,omitempty"`
	Events []reports.EventRow `json:"events,omitempty"`
}

// final is the attempt that counts.
func (r caseRecord) final() attemptRows { return r.Attempts[len(r.Attempts)-1] }

// key is the record's (case, epoch) in the journal's terms.
func (r caseRecord) key() journal.Key {
	f := r.final().Result
	return journal.Key{CaseID: f.CaseID, Epoch: int(f.Epoch)}
}

// recordFromCase turns a finished case and its earlier attempts into rows.
func recordFromCase(c *pipeline.Case, outDir string) caseRecord {
	rec := caseRecord{Attempts: make([]attemptRows, 0, len(c.Earlier)+1)}
	for _, a := range c.Earlier {
		rec.Attempts = append(rec.Attempts, attemptFromCase(a, outDir))
	}
	rec.Attempts = append(rec.Attempts, attemptFromCase(c, outDir))
	return rec
}

// attemptFromCase is the rows of one attempt.
func attemptFromCase(a *pipeline.Case, outDir string) attemptRows {
	run := caseRun(a)
	row, events := reports.FromCase(run, outDir)
	return attemptRows{Result: row, Scores: reports.ScoresFromCase(run), Events: events}
}

// entry is the record as a journal line.
func (r caseRecord) entry() (journal.Entry, error) { return r.entryIn(nil) }

// entryIn is entry with the record appended to buf[:0], so that the
// entry's Record shares buf's array: the collector keeps one buffer per
// place in its batch (each entry's Record[:0] for the next batch) instead
// of a fresh ~5 KiB record per case (8% of a waiting run's allocations,
// BENCHMARKS.md, issue 19). appendRecord writes json.Marshal's bytes
// (recordjson.go); a record it cannot write (a NaN, a year past 9999)
// goes to json.Marshal, whose error it gets.
func (r caseRecord) entryIn(buf []byte) (journal.Entry, error) {
	f := r.final().Result
	b, ok := appendRecord(buf[:0], &r)
	if !ok {
		var err error
		if b, err = json.Marshal(r); err != nil {
			return journal.Entry{}, errcode.Wrap(errcode.Internal, err, "encode journal record of %q", f.CaseID)
		}
	}
	return journal.Entry{CaseID: f.CaseID, Epoch: int(f.Epoch), Attempt: int(f.Attempt), Record: b, Marshalled: true}, nil
}

// decodeRecord reads a journal line's record back.
func decodeRecord(e journal.Entry) (caseRecord, error) {
	var r caseRecord
	if err := json.Unmarshal(e.Record, &r); err != nil || len(r.Attempts) == 0 {
		return r, errcode.New(errcode.IO, "journal entry of %q epoch %d is not a case record", e.CaseID, e.Epoch)
	}
	return r, nil
}

// rebase sets every row's run id, for a resumed run (the original id) or a
// merged one (the merge's id), and re-roots session_dir with rel.
func (r *caseRecord) rebase(runID string, rel func(string) string) {
	for i := range r.Attempts {
		a := &r.Attempts[i]
		a.Result.RunID = runID
		if rel != nil {
			a.Result.SessionDir = rel(a.Result.SessionDir)
		}
		for j := range a.Scores {
			a.Scores[j].RunID = runID
		}
		for j := range a.Events {
			a.Events[j].RunID = runID
		}
	}
}
