package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloseUnreachedSkipsTheNameCheck: CloseUnreached flushes what is
// buffered and closes the file, and does not look at the trace's name:
// a link left there (which only untrusted code could have made, and
// Close would replace) stays, and no session_file_replaced is written.
func TestCloseUnreachedSkipsTheNameCheck(t *testing.T) {
	w, p := plantedTrace(t, false)
	dir, path, host := p.dir, p.path, p.host
	if err := w.CloseUnreached(); err != nil {
		t.Fatalf("CloseUnreached: %v", err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("trace.jsonl after CloseUnreached: %v, %v; want the link left alone", fi, err)
	}
	for _, l := range w.Lines() {
		if l.Type == TypeSessionFileReplaced {
			t.Errorf("CloseUnreached wrote %s", l.JSON)
		}
	}
	// Both lines, buffered until now, went to the file the Writer held.
	if b, _ := os.ReadFile(filepath.Join(dir, "t2")); strings.Count(string(b), "\n") != 2 || !strings.Contains(string(b), `"event_type":"session_end"`) {
		t.Errorf("the held file = %q, want both lines flushed", b)
	}
	if b, _ := os.ReadFile(host); string(b) != hostText {
		t.Errorf("host file = %q", b)
	}
	if err := w.f.Close(); err == nil {
		t.Error("the file is still open after CloseUnreached")
	}
}
