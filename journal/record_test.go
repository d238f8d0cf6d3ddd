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
