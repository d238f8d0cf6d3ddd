package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloseReclaimsATraceATookReplaced: a tool renames trace.jsonl and
// leaves a link to a host file at its name while the Writer holds it;
// Close puts the Writer's lines back at the name in a regular file, ends
// them with a session_file_replaced event (also in Lines), and leaves the
// host file and the tool's renamed copy alone.
func TestCloseReclaimsATraceATookReplaced(t *testing.T) {
	w, p := plantedTrace(t, true)
	dir, path, host := p.dir, p.path, p.host
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("trace.jsonl after Close: %v, %v; want a regular file", fi, err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var types []string
	for _, l := range w.Lines() {
		types = append(types, l.Type)
	}
	if got := strings.Join(types, ","); got != "task_start,session_end,session_file_replaced" {
		t.Errorf("Lines types = %s", got)
	}
	if len(lines) != 3 || !strings.Contains(lines[2], `"event_type":"session_file_replaced"`) || !strings.Contains(lines[2], `"path":"trace.jsonl","found":"a symlink"`) {
		t.Errorf("trace.jsonl =\n%s\nwant the Writer's two lines and a session_file_replaced event", data)
	}
	if b, _ := os.ReadFile(host); string(b) != hostText {
		t.Errorf("host file = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "t2")); strings.Count(string(b), "\n") != 2 {
		t.Errorf("renamed copy = %q, want the two lines written before Close", b)
	}
}

// TestCloseLeavesAnUntouchedTrace: nothing replaced, nothing added.
func TestCloseLeavesAnUntouchedTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	w, err := Create(path, "ses_1", fixedClock())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SessionEnd("ok"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); strings.Count(string(data), "\n") != 1 || len(w.Lines()) != 1 {
		t.Errorf("trace.jsonl = %q, %d lines; want the one session_end", data, len(w.Lines()))
	}
}

// planted is where plantedTrace put things: the session folder, the
// trace's name and the host file the link there points to.
type planted struct{ dir, path, host string }

// hostText is the host file's content.
const hostText = "root:x:0:0\n"

// plantedTrace is a Writer whose trace a tool replaced: a task_start
// written (flushed to the file with flush), the file renamed to t2 and a
// link to a host file left at its name, then a session_end written.
func plantedTrace(t *testing.T, flush bool) (*Writer, planted) {
	t.Helper()
	p := planted{dir: t.TempDir(), host: filepath.Join(t.TempDir(), "passwd")}
	p.path = filepath.Join(p.dir, "trace.jsonl")
	if err := os.WriteFile(p.host, []byte(hostText), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(p.path, "ses_1", fixedClock())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.TaskStart(TaskStart{}); err != nil {
		t.Fatal(err)
	}
	if flush {
		if err := w.flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(p.path, filepath.Join(p.dir, "t2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p.host, p.path); err != nil {
		t.Fatal(err)
	}
	if err := w.SessionEnd("ok"); err != nil {
		t.Fatal(err)
	}
	return w, p
}
