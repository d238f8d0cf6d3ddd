package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func entry(id string, epoch, attempt int) Entry {
	return Entry{CaseID: id, Epoch: epoch, Attempt: attempt, Record: json.RawMessage(`{"status":"passed"}`)}
}

func TestJournalSurvivesATornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	w, got, err := Open(path)
	if err != nil || len(got) != 0 {
		t.Fatalf("Open new = %v, %v", got, err)
	}
	for _, e := range []Entry{entry("a", 1, 1), entry("b", 1, 1)} {
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	// A kill in the middle of the third write.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"case_id":"c","epoch":1,"att`)
	f.Close()

	w, got, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Entry{entry("a", 1, 1), entry("b", 1, 1)}, got); diff != "" {
		t.Errorf("entries after a torn write (-want +got):\n%s", diff)
	}
	if err := w.Append(entry("c", 1, 1)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, got, err = Open(path)
	if err != nil || len(got) != 3 || got[2].CaseID != "c" {
		t.Fatalf("after repair and append: %v, %v", got, err)
	}
}

func TestJournalDropsAGarbledTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	data := `{"case_id":"a","epoch":1,"attempt":1,"record":{}}` + "\n" + "\x00\x00\x00\n" + `{"case_id":"b","epoch":1,"attempt":1,"record":{}}` + "\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	_, got, err := Open(path)
	if err != nil || len(got) != 1 || got[0].CaseID != "a" {
		t.Fatalf("Open = %v, %v; want only a", got, err)
	}
}

func TestLatestKeepsTheLastAttempt(t *testing.T) {
	in := []Entry{entry("a", 1, 1), entry("b", 1, 1), entry("a", 1, 2), entry("a", 2, 1)}
	want := []Entry{entry("a", 1, 2), entry("b", 1, 1), entry("a", 2, 1)}
	if diff := cmp.Diff(want, Latest(in)); diff != "" {
		t.Errorf("Latest (-want +got):\n%s", diff)
	}
}

func FuzzOpen(f *testing.F) {
	f.Add([]byte(`{"case_id":"a","epoch":1,"attempt":1,"record":{}}` + "\n"))
	f.Add([]byte("{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "j")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		w, entries, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append(entry("z", 1, 1)); err != nil {
			t.Fatal(err)
		}
		w.Close()
		_, again, err := Open(path)
		if err != nil || len(again) != len(entries)+1 {
			t.Fatalf("after append: %d entries, want %d (%v)", len(again), len(entries)+1, err)
		}
	})
}

func TestReadLeavesATornTailInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	w, _, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Entry{entry("a", 1, 1), entry("b", 1, 2)} {
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"case_id":"c","epo`)
	f.Close()
	before, _ := os.ReadFile(path)
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Entry{entry("a", 1, 1), entry("b", 1, 2)}, got); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("Read changed the file")
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none.jsonl")); err == nil {
		t.Error("Read of a missing journal: no error")
	}
}

// TestAppendAllIsOneGroupCommit: a batch lands as consecutive lines, read
// back in order after the single entries before it; a batch with an entry
// that cannot be encoded writes nothing.
func TestAppendAllIsOneGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	w, _, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(entry("a", 1, 1)); err != nil {
		t.Fatal(err)
	}
	batch := []Entry{entry("b", 1, 1), entry("c", 1, 1), entry("c", 2, 1)}
	if err := w.AppendAll(batch); err != nil {
		t.Fatal(err)
	}
	bad := []Entry{entry("d", 1, 1), {CaseID: "e", Record: json.RawMessage(`{not json`)}}
	if err := w.AppendAll(bad); err == nil {
		t.Error("AppendAll with an unencodable record succeeded")
	}
	if err := w.AppendAll(nil); err != nil {
		t.Errorf("empty batch: %v", err)
	}
	w.Close()
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]Entry{entry("a", 1, 1)}, batch...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
}
