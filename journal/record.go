package journal

import (
	"encoding/json"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// Record is what the journal keeps of one finished (case, epoch): the
// rows of every attempt, the last one final. It carries the events too, so a
// resumed or merged run rebuilds events.parquet even when --keep-sessions
// removed the session folders (RATIONALE.md, "Why does the journal hold
// whole cases, events included, and not each attempt?").
type Record struct {
	Attempts []Attempt `json:"attempts"`
}

// Attempt is the rows of one attempt of a case.
type Attempt struct {
	Result reports.ResultRow  `json:"result"`
	Scores []reports.ScoreRow `json:"scores,omitempty"`
	Events []reports.EventRow `json:"events,omitempty"`
}

// Final is the attempt that counts.
func (r Record) Final() Attempt { return r.Attempts[len(r.Attempts)-1] }

// Key is the record's (case, epoch, variant).
func (r Record) Key() Key {
	f := r.Final().Result
	var v string
	if f.Variant != nil {
		v = *f.Variant
	}
	return Key{CaseID: f.CaseID, Epoch: int(f.Epoch), Variant: v}
}

// NewAttempt is the rows of one attempt of a finished case, as
// reports.FromCase and reports.ScoresFromCase make them, its session
// folder relative to outDir.
func NewAttempt(run reports.CaseRun, outDir string) Attempt {
	row, events := reports.FromCase(run, outDir)
	return Attempt{Result: row, Scores: reports.ScoresFromCase(run), Events: events}
}

// Entry is the record as a journal line.
func (r Record) Entry() (Entry, error) { return r.EntryIn(nil) }

// EntryIn is Entry with the record appended to buf[:0], so that the
// entry's Record shares buf's array: the collector keeps one buffer per
// place in its batch (each entry's Record[:0] for the next batch) instead
// of a fresh ~5 KiB record per case (8% of a waiting run's allocations,
// BENCHMARKS.md, issue 19). appendRecord writes json.Marshal's bytes
// (recordjson.go); a record it cannot write (a NaN, a year past 9999)
// goes to json.Marshal, whose error it gets.
func (r Record) EntryIn(buf []byte) (Entry, error) {
	f := r.Final().Result
	b, ok := appendRecord(buf[:0], &r)
	if !ok {
		var err error
		if b, err = json.Marshal(r); err != nil {
			return Entry{}, errcode.Wrap(errcode.Internal, err, "encode journal record of %q", f.CaseID)
		}
	}
	e := Entry{CaseID: f.CaseID, Epoch: int(f.Epoch), Attempt: int(f.Attempt), Record: b, Marshalled: true}
	if f.Variant != nil {
		e.Variant = *f.Variant
	}
	return e, nil
}

// DecodeRecord reads a journal line's record back.
func DecodeRecord(e Entry) (Record, error) {
	var r Record
	if err := json.Unmarshal(e.Record, &r); err != nil || len(r.Attempts) == 0 {
		return r, errcode.New(errcode.IO, "journal entry of %q epoch %d is not a case record", e.CaseID, e.Epoch)
	}
	return r, nil
}

// Rebase sets every row's run id, for a resumed run (the original id) or a
// merged one (the merge's id), and re-roots session_dir with rel.
func (r *Record) Rebase(runID string, rel func(string) string) {
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

// RowIDs is the identity of every row of the record, attempt by attempt,
// for Bounds.Check.
func (r Record) RowIDs() []AttemptRows {
	out := make([]AttemptRows, len(r.Attempts))
	for i, a := range r.Attempts {
		res := a.Result
		out[i].Result = Row{CaseID: res.CaseID, Epoch: int(res.Epoch), Attempt: int(res.Attempt), SessionID: res.SessionID, SessionDir: res.SessionDir}
		others := make([]Row, 0, len(a.Scores)+len(a.Events))
		for _, s := range a.Scores {
			others = append(others, Row{CaseID: s.CaseID, Epoch: int(s.Epoch), Attempt: int(s.Attempt), SessionID: s.SessionID})
		}
		for _, e := range a.Events {
			others = append(others, Row{CaseID: e.CaseID, Epoch: int(e.Epoch), Attempt: int(e.Attempt), SessionID: e.SessionID})
		}
		out[i].Others = others
	}
	return out
}

// CheckRecord is a Check that refuses a line whose record does not
// decode: a bad line, skipped, and its case runs again.
func CheckRecord(e Entry) error {
	_, err := DecodeRecord(e)
	return err
}

// InRun is the Check of a line on --resume and merge: its record decodes
// (CheckRecord) and it belongs to the run (b.Check). A line either refuses
// is a bad line: reported, not counted, dropped from the journal.
func InRun(b Bounds) Check {
	return func(e Entry) error {
		r, err := DecodeRecord(e)
		if err != nil {
			return err
		}
		return b.Check(e, r.RowIDs())
	}
}

// Records decodes the latest entry of every (case, epoch) of entries, and
// says which (case, epoch) pairs are done.
func Records(entries []Entry) ([]Record, map[Key]bool, error) {
	latest := Latest(entries)
	records := make([]Record, 0, len(latest))
	done := make(map[Key]bool, len(latest))
	for _, e := range latest {
		r, err := DecodeRecord(e)
		if err != nil {
			return nil, nil, err
		}
		records = append(records, r)
		done[e.Key()] = true
	}
	return records, done, nil
}
