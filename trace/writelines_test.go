package trace

import (
	"bytes"
	"encoding/json"
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

// marshalLine is a trace line as json.Marshal makes it: the common fields,
// then the event's own, in order (the reference writeAt must match).
func marshalLine(t *testing.T, typ, sessionID string, ms int64, event any) []byte {
	t.Helper()
	head, err := json.Marshal(struct {
		EventType string `json:"event_type"`
		SessionID string `json:"session_id"`
		Timestamp int64  `json:"timestamp"`
	}{typ, sessionID, ms})
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	line := head[:len(head)-1]
	if len(body) > 2 {
		return append(append(line, ','), body[1:]...)
	}
	return append(line, '}')
}

// TestLinesMatchMarshal: every line is byte for byte what json.Marshal of
// its fields gives, for awkward session ids, event types and contents
// (HTML characters, quotes, control bytes, U+2028, invalid UTF-8, an
// empty event, one larger than the scratch buffer kept).
func TestLinesMatchMarshal(t *testing.T) {
	type odd struct {
		A string          `json:"a"`
		B json.RawMessage `json:"b,omitempty"`
	}
	events := []struct {
		typ   string
		event any
	}{
		{"task_start", TaskStart{TaskID: "t<1>&", Source: "a\"b\\c\n\u2028"}},
		{"odd <type> & \"quoted\"", odd{A: "\x01\x7f\xff"}},
		{"empty", struct{}{}},
		{"raw", odd{B: json.RawMessage(`{"x": [1, 2]}`)}},
		{"big", odd{A: strings.Repeat("<é>", 40<<10)}},
		{"after_big", TaskEnd{ExitStatus: "ok"}},
	}
	for _, id := range []string{"ses_1", "ses_<&>\u2028\"\\", "ses_\xff"} {
		clock := fixedClock()
		w, err := Create(filepath.Join(t.TempDir(), "trace.jsonl"), id, clock)
		if err != nil {
			t.Fatal(err)
		}
		ref := fixedClock()
		ref() // Create read the clock once
		for _, e := range events {
			if err := w.write(e.typ, nil, "", e.event); err != nil {
				t.Fatal(err)
			}
			want := marshalLine(t, e.typ, id, ref().UnixMilli(), e.event)
			got := w.Lines()[len(w.Lines())-1].JSON
			if !bytes.Equal(got, want) {
				t.Errorf("session %q, %s:\n got %.200s\nwant %.200s", id, e.typ, got, want)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAppendJSONStringMatchesMarshal over every single byte and some
// longer strings.
func TestAppendJSONStringMatchesMarshal(t *testing.T) {
	var cases []string
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"z")
	}
	cases = append(cases, "", "session_end", "é", "\u2028", "\U0001F600", "tool_call")
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("%q: got %s, want %s", s, got[1:], want)
		}
	}
}
