package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// TestVariantEntries: a case's variants are journaled apart, keyed by
// (case, epoch, variant), and read back so; a run without variants writes
// no variant key.
func TestVariantEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	w, _, err := Open(path, CheckRecord)
	if err != nil {
		t.Fatal(err)
	}
	record := func(v string, attempt int32) Record {
		r := reports.ResultRow{RunID: "r", CaseID: "c", Epoch: 1, Attempt: attempt, Status: reports.StatusPassed}
		if v != "" {
			r.Variant = &v
		}
		return Record{Attempts: []Attempt{{Result: r}}}
	}
	for _, r := range []Record{record("a", 1), record("b", 1), record("", 1), record("b", 2)} {
		e, err := r.Entry()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := Read(path, CheckRecord)
	if err != nil {
		t.Fatal(err)
	}
	records, done, err := Records(c.Entries)
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 3 || len(done) != 3 {
		t.Fatalf("%d records, %d done; want 3 each (a, b's latest, none)", len(records), len(done))
	}
	for _, k := range []Key{{"c", 1, "a"}, {"c", 1, "b"}, {"c", 1, ""}} {
		if !done[k] {
			t.Errorf("%+v not done", k)
		}
	}
	for _, r := range records {
		if r.Key().Variant == "b" && r.Final().Result.Attempt != 2 {
			t.Errorf("variant b: attempt %d kept, want the latest", r.Final().Result.Attempt)
		}
	}
	if c.Entries[2].Variant != "" || c.Entries[0].Variant != "a" {
		t.Errorf("entries' variants: %q, %q", c.Entries[0].Variant, c.Entries[2].Variant)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if !strings.HasPrefix(lines[0], `{"case_id":"c","epoch":1,"attempt":1,"variant":"a","record":`) ||
		!strings.HasPrefix(lines[2], `{"case_id":"c","epoch":1,"attempt":1,"record":`) {
		t.Errorf("journal lines:\n%s\n%s", lines[0][:80], lines[2][:80])
	}
}
