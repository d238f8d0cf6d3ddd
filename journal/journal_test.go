package journal

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func entry(id string, epoch, attempt int) Entry {
	return Entry{CaseID: id, Epoch: epoch, Attempt: attempt, Record: json.RawMessage(`{"status":"passed"}`)}
}

var ignoreLine = cmpopts.IgnoreFields(Entry{}, "Line")

func line(e Entry) string {
	b, _ := json.Marshal(e)
	return string(b) + "\n"
}

func TestJournalSurvivesATornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	w, got, err := Open(path, nil)
	if err != nil || len(got.Entries) != 0 {
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

	w, got, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Entry{entry("a", 1, 1), entry("b", 1, 1)}, got.Entries, ignoreLine); diff != "" {
		t.Errorf("entries after a torn write (-want +got):\n%s", diff)
	}
	if len(got.Bad) != 0 || got.TornLine != 3 {
		t.Errorf("a torn last line: bad %v, torn line %d; want no bad line, torn line 3", got.Bad, got.TornLine)
	}
	if err := w.Append(entry("c", 1, 1)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, got, err = Open(path, nil)
	if err != nil || len(got.Entries) != 3 || got.Entries[2].CaseID != "c" || got.TornLine != 0 {
		t.Fatalf("after repair and append: %v, %v", got, err)
	}
}

// TestJournalSkipsBadLines: a bad complete line anywhere is skipped and
// reported with its number; the lines after it are kept; Open rewrites
// the journal without it so the next read is whole.
func TestJournalSkipsBadLines(t *testing.T) {
	// The bound is the test's (the logic is MaxLine's; a 64 MiB line cost
	// seconds of CPU under the race detector).
	const maxLine = 1 << 10
	long := `{"case_id":"x","record":"` + strings.Repeat("y", maxLine) + `"}` + "\n"
	notRecord := errors.New("record is not a case record")
	check := func(e Entry) error {
		if string(e.Record) == `"bad"` {
			return notRecord
		}
		return nil
	}
	tests := []struct {
		name    string
		data    string
		want    []string // case ids kept
		badAt   []int
		tornAt  int
		reasons []string
	}{
		{"garbage middle line", line(entry("a", 1, 1)) + "\x00\x00\x00\n" + line(entry("b", 1, 1)),
			[]string{"a", "b"}, []int{2}, 0, []string{"not a JSON journal entry"}},
		{"two writers interleaved", line(entry("a", 1, 1)) + `{"case_id":"b","ep{"case_id":"c","epoch":1,"attempt":1,"record":{}}` + "\n" + line(entry("d", 1, 1)),
			[]string{"a", "d"}, []int{2}, 0, []string{"not a JSON journal entry"}},
		{"no case id", `{"epoch":1}` + "\n" + line(entry("b", 1, 1)), []string{"b"}, []int{1}, 0, []string{"without case_id"}},
		{"refused by check", `{"case_id":"a","epoch":1,"attempt":1,"record":"bad"}` + "\n" + line(entry("b", 1, 1)),
			[]string{"b"}, []int{1}, 0, []string{notRecord.Error()}},
		{"too long", line(entry("a", 1, 1)) + long + line(entry("b", 1, 1)), []string{"a", "b"}, []int{2}, 0, []string{"longer than"}},
		{"blank lines are not bad", "\n" + line(entry("a", 1, 1)) + "  \n", []string{"a"}, nil, 0, nil},
		{"bad line then torn tail", "{\n" + line(entry("a", 1, 1)) + `{"case_id":"c"`, []string{"a"}, []int{1}, 3, []string{"not a JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.jsonl")
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readFile(path, check, maxLine)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range got.Entries {
				ids = append(ids, e.CaseID)
			}
			var at []int
			for i, b := range got.Bad {
				at = append(at, b.Line)
				if !strings.Contains(b.Reason, tt.reasons[i]) {
					t.Errorf("bad line %d: reason %q, want it to say %q", b.Line, b.Reason, tt.reasons[i])
				}
			}
			if diff := cmp.Diff(tt.want, ids); diff != "" {
				t.Errorf("entries kept (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.badAt, at); diff != "" {
				t.Errorf("bad lines (-want +got):\n%s", diff)
			}
			if got.TornLine != tt.tornAt {
				t.Errorf("torn line %d, want %d", got.TornLine, tt.tornAt)
			}
			whole := got.Whole(path)
			if (len(tt.badAt) > 0 || tt.tornAt > 0) != errcode.Is(whole, errcode.JournalCorrupt) {
				t.Errorf("Whole = %v; want %s exactly when a line was not read", whole, errcode.JournalCorrupt)
			}
			if len(tt.badAt) > 0 {
				var e *errcode.Error
				if errors.As(whole, &e); e == nil || !strings.HasSuffix(e.Where, filepath.Base(path)+":"+itoa(tt.badAt[0])) {
					t.Errorf("Whole names %v, want %s:%d", whole, path, tt.badAt[0])
				}
			}

			// Open rewrites the journal with the good lines only.
			w, opened, err := open(path, check, maxLine)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got.Entries, opened.Entries); diff != "" {
				t.Errorf("Open read otherwise than Read (-Read +Open):\n%s", diff)
			}
			if err := w.Append(entry("z", 1, 1)); err != nil {
				t.Fatal(err)
			}
			w.Close()
			again, err := readFile(path, check, maxLine)
			if err != nil {
				t.Fatal(err)
			}
			if err := again.Whole(path); err != nil {
				t.Errorf("after Open and an append the journal is not whole: %v", errcode.Format(err))
			}
			if diff := cmp.Diff(append(got.Entries, entry("z", 1, 1)), again.Entries, ignoreLine); diff != "" {
				t.Errorf("after Open and an append (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestJournalRefusesLinksAndFIFOs: a journal that is a symbolic link or a
// FIFO is refused at once, never followed nor waited on.
func TestJournalRefusesLinksAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte(line(entry("a", 1, 1))), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, fifo} {
		if _, err := Read(p, nil); !errcode.Is(err, errcode.IO) {
			t.Errorf("Read(%s) = %v, want %s", filepath.Base(p), err, errcode.IO)
		}
		if _, _, err := Open(p, nil); !errcode.Is(err, errcode.IO) {
			t.Errorf("Open(%s) = %v, want %s", filepath.Base(p), err, errcode.IO)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != line(entry("a", 1, 1)) {
		t.Errorf("the link's target changed: %q", b)
	}
}

func TestLatestKeepsTheLastAttempt(t *testing.T) {
	in := []Entry{entry("a", 1, 1), entry("b", 1, 1), entry("a", 1, 2), entry("a", 2, 1)}
	want := []Entry{entry("a", 1, 2), entry("b", 1, 1), entry("a", 2, 1)}
	if diff := cmp.Diff(want, Latest(in)); diff != "" {
		t.Errorf("Latest (-want +got):\n%s", diff)
	}
}

// FuzzOpen: whatever the bytes, Open does not fail or panic, keeps every
// good line Read sees, and leaves a journal that reads whole afterwards.
func FuzzOpen(f *testing.F) {
	f.Add([]byte(`{"case_id":"a","epoch":1,"attempt":1,"record":{}}` + "\n"))
	f.Add([]byte("{\n"))
	f.Add([]byte(line(entry("a", 1, 1)) + "\x00\n" + line(entry("b", 1, 1)) + `{"case_id"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "j")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		read, err := Read(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		w, c, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(read, c); diff != "" {
			t.Fatalf("Open and Read disagree (-Read +Open):\n%s", diff)
		}
		if err := w.Append(entry("z", 1, 1)); err != nil {
			t.Fatal(err)
		}
		w.Close()
		again, err := Read(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := again.Whole(path); err != nil {
			t.Fatalf("after Open and an append: %v", err)
		}
		if len(again.Entries) != len(c.Entries)+1 {
			t.Fatalf("after append: %d entries, want %d", len(again.Entries), len(c.Entries)+1)
		}
	})
}

func TestReadLeavesATornTailInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	w, _, err := Open(path, nil)
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
	got, err := Read(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Entry{entry("a", 1, 1), entry("b", 1, 2)}, got.Entries, ignoreLine); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("Read changed the file")
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none.jsonl"), nil); !errcode.Is(err, errcode.IONotFound) {
		t.Errorf("Read of a missing journal: %v, want %s", err, errcode.IONotFound)
	}
}

// TestAppendAllIsOneGroupCommit: a batch lands as consecutive lines, read
// back in order after the single entries before it; a batch with an entry
// that cannot be encoded writes nothing.
func TestAppendAllIsOneGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	w, _, err := Open(path, nil)
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
	got, err := Read(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]Entry{entry("a", 1, 1)}, batch...)
	if diff := cmp.Diff(want, got.Entries, ignoreLine); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
}
