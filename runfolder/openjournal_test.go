package runfolder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestOpenJournal: a new run records its configuration in run.json; its
// resume reads the journal back, lists a line that is not of the run as
// bad and counts the rest done, and refuses a changed configuration.
func TestOpenJournal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	parts := map[string]string{"epochs": "1"}
	bounds := journal.Bounds{HasCase: func(id string) bool { return id == "a" }, Epochs: 1, Attempts: 1}
	f, err := Create(out, "run_1")
	if err != nil {
		t.Fatal(err)
	}
	j, err := f.OpenJournal(out, t.TempDir(), parts, RunInfo{Version: "v1", Inputs: map[string]string{"epochs": "1"}}, bounds)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} { // b is not of the run
		sid := trace.NewID("ses_")
		rec := journal.Record{Attempts: []journal.Attempt{{Result: reports.ResultRow{CaseID: id, Epoch: 1, Attempt: 1, SessionID: sid, SessionDir: "sessions/" + sid}}}}
		e, err := rec.Entry()
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	f.Unlock()
	run, err := journal.ReadRun(out)
	if err != nil || run.RunID != "run_1" || run.Version != "v1" || run.ConfigSHA256 != journal.Fingerprint(parts) {
		t.Fatalf("run.json %+v, %v", run, err)
	}

	r, err := Resume(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Unlock()
	if _, err := r.OpenJournal(out, t.TempDir(), map[string]string{"epochs": "2"}, RunInfo{}, bounds); errcode.Code(err) != errcode.Usage {
		t.Errorf("changed configuration: code %q, want %s", errcode.Code(err), errcode.Usage)
	}
	j, err = r.OpenJournal(out, t.TempDir(), parts, RunInfo{}, bounds)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if len(j.Records) != 1 || !j.Done[journal.Key{CaseID: "a", Epoch: 1}] || len(j.Bad) != 1 || j.Bad[0].Line != 2 {
		t.Errorf("records %d, done %v, bad %+v; want a done and line 2 bad", len(j.Records), j.Done, j.Bad)
	}
	if _, err := os.Stat(filepath.Join(out, JournalFile)); err != nil {
		t.Error(err)
	}
}
