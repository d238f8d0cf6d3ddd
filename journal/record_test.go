package journal

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// TestRecordRoundTrip: a journal line gives back the rows it was made of,
// so a resumed run writes the same Parquet rows.
func TestRecordRoundTrip(t *testing.T) {
	code, msg, ms := "E-INF-001", "provider unavailable", 12.5
	rec := Record{Attempts: []Attempt{
		{Result: reports.ResultRow{RunID: "r", CaseID: "c", Epoch: 2, Attempt: 1, Status: "error", ErrorCode: &code, ErrorMessage: &msg,
			StartedAt: time.UnixMilli(1_700_000_000_123).UTC(), DurationMS: 0.1 + 0.2, LoopMS: &ms}},
		{Result: reports.ResultRow{RunID: "r", CaseID: "c", Epoch: 2, Attempt: 2, Status: "passed", SessionDir: "sessions/s2"},
			Scores: []reports.ScoreRow{{RunID: "r", CaseID: "c", Epoch: 2, Attempt: 2, Scorer: "exit_ok", Result: "pass", Score: 1}},
			Events: []reports.EventRow{{RunID: "r", CaseID: "c", Epoch: 2, Attempt: 2, Seq: 0, EventType: "session_start", EventJSON: `{"a":"é"}`}}},
	}}
	e, err := rec.Entry()
	if err != nil {
		t.Fatal(err)
	}
	if e.CaseID != "c" || e.Epoch != 2 || e.Attempt != 2 {
		t.Errorf("entry key %q/%d attempt %d, want c/2 attempt 2", e.CaseID, e.Epoch, e.Attempt)
	}
	got, err := DecodeRecord(e)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rec, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	got.Rebase("m", func(p string) string { return "../shard/" + p })
	if f := got.Final(); f.Result.RunID != "m" || f.Scores[0].RunID != "m" || f.Events[0].RunID != "m" || f.Result.SessionDir != "../shard/sessions/s2" {
		t.Errorf("rebase: %+v", f)
	}
}

// TestEntryInReusedBufferIsMarshal: a record encoded into a buffer that
// held a longer one is json.Marshal's bytes, HTML characters escaped, as
// the journal's Marshalled promises.
func TestEntryInReusedBufferIsMarshal(t *testing.T) {
	long := Record{Attempts: []Attempt{{Result: reports.ResultRow{CaseID: strings.Repeat("x", 10_000)}}}}
	short := Record{Attempts: []Attempt{{Result: reports.ResultRow{RunID: "r", CaseID: "c<&>", Epoch: 1, Attempt: 1},
		Events: []reports.EventRow{{EventType: "session_start", EventJSON: `{"a":"<é>\u2028"}`}}}}}
	first, err := long.EntryIn(nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := short.EntryIn(first.Record[:0])
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(short)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(e.Record, want) || !e.Marshalled || e.CaseID != "c<&>" {
		t.Errorf("record %s, want %s (marshalled %v)", e.Record, want, e.Marshalled)
	}
}

// TestInRunAndRecords: a line whose record does not decode, or does not
// belong to the run, is refused by InRun; Records keeps the latest line of
// each (case, epoch) and says which are done.
func TestInRunAndRecords(t *testing.T) {
	sid := "ses_0193f1e2a7b84c5d9e0f1a2b3c4d5e6f"
	rec := func(id string, epoch, attempt int32) Record {
		return Record{Attempts: []Attempt{{Result: reports.ResultRow{CaseID: id, Epoch: epoch, Attempt: attempt, SessionID: sid, SessionDir: "sessions/" + sid},
			Scores: []reports.ScoreRow{{CaseID: id, Epoch: epoch, Attempt: attempt, SessionID: sid}}}}}
	}
	entry := func(r Record) Entry {
		e, err := r.Entry()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	check := InRun(Bounds{HasCase: func(id string) bool { return id == "a" }, Epochs: 2, Attempts: 2})
	tests := []struct {
		name string
		e    Entry
		ok   bool
	}{
		{"of the run", entry(rec("a", 1, 1)), true},
		{"another case", entry(rec("b", 1, 1)), false},
		{"an epoch past the run's", entry(rec("a", 3, 1)), false},
		{"not a record", Entry{CaseID: "a", Epoch: 1, Attempt: 1, Record: []byte(`{"attempts":[]}`)}, false},
	}
	for _, tt := range tests {
		if err := check(tt.e); (err == nil) != tt.ok {
			t.Errorf("%s: %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
	if err := CheckRecord(tests[3].e); err == nil {
		t.Error("CheckRecord took a record of no attempt")
	}
	retried := rec("a", 1, 2)
	retried.Attempts = append([]Attempt{rec("a", 1, 1).Attempts[0]}, retried.Attempts...)
	records, done, err := Records([]Entry{entry(rec("a", 1, 1)), entry(rec("a", 2, 1)), entry(retried)})
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 2 || len(done) != 2 || !done[Key{CaseID: "a", Epoch: 1}] || !done[Key{CaseID: "a", Epoch: 2}] {
		t.Fatalf("records %d, done %v", len(records), done)
	}
	for _, r := range records {
		if r.Key() == (Key{CaseID: "a", Epoch: 1}) && len(r.Attempts) != 2 {
			t.Errorf("epoch 1: %d attempts, want the retried line's 2", len(r.Attempts))
		}
	}
	ids := retried.RowIDs()
	if len(ids) != 2 || ids[1].Result.Attempt != 2 || len(ids[1].Others) != 1 || ids[1].Result.SessionDir != "sessions/"+sid {
		t.Errorf("row ids %+v", ids)
	}
}
