package trace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriterWritesWhenLinesReachTheBuffer: lines wait in memory until they
// reach traceBuffer bytes, then all go out; Close writes the rest; the
// file is the lines in order, each with its newline, and appends to what
// was there (a reopened session).
func TestWriterWritesWhenLinesReachTheBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte("{\"earlier\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, "ses_1", fixedClock())
	if err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	written := 0
	for i := 0; size() == 14; i++ {
		if i > 1000 {
			t.Fatal("nothing written after 1,000 events")
		}
		if err := w.TaskStart(TaskStart{TaskID: fmt.Sprint("tsk_", i), Source: strings.Repeat("x", 100)}); err != nil {
			t.Fatal(err)
		}
		written++
	}
	if got := size() - 14; got < traceBuffer {
		t.Errorf("wrote %d bytes once lines reached the buffer, want at least %d", got, traceBuffer)
	}
	if err := w.TaskEnd(TaskEnd{ExitStatus: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	want.WriteString("{\"earlier\":1}\n")
	for _, l := range w.Lines() {
		want.Write(l.JSON)
		want.WriteByte('\n')
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Lines()) != written+1 || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("%d lines; the file is not the lines in order:\n%s", len(w.Lines()), got)
	}
}

// TestWriteLinesInBatches: more lines than one writev takes, of many
// sizes, arrive whole and in order.
func TestWriteLinesInBatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lines")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	var want bytes.Buffer
	for i := range 2500 {
		l := []byte(strings.Repeat(string(rune('a'+i%26)), i%300) + "\n")
		lines = append(lines, l)
		want.Write(l)
	}
	if err := writeLines(f, lines); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("got %d bytes, want %d", len(got), want.Len())
	}
	if err := writeLines(f, lines[:1]); err == nil {
		t.Error("writeLines to a closed file: no error")
	}
}
