package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/trace"
)

func newTrace(t *testing.T, dir string) *trace.Writer {
	t.Helper()
	tw, err := trace.Create(filepath.Join(dir, "trace.jsonl"), "ses_x", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return tw
}

// TestCloseWritesTheFallbackSessionEnd: a session that started but never
// ended gets murmur's fallback session_end (failed) when it is closed,
// and its trace is flushed to the file; an ended one gets no second end.
func TestCloseWritesTheFallbackSessionEnd(t *testing.T) {
	for _, ended := range []bool{false, true} {
		dir := t.TempDir()
		tw := newTrace(t, dir)
		if err := tw.SessionStart(trace.SessionStart{}); err != nil {
			t.Fatal(err)
		}
		if ended {
			if err := tw.SessionEnd(trace.ExitOK); err != nil {
				t.Fatal(err)
			}
		}
		s := &Session{Dir: dir, Trace: tw}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), `"event_type":"session_end"`); n != 1 {
			t.Errorf("ended=%v: %d session_end events, want 1:\n%s", ended, n, b)
		}
		if !ended && !strings.Contains(string(b), `"exit_status":"failed"`) {
			t.Errorf("fallback session_end is not failed:\n%s", b)
		}
	}
}

// TestCloseWithoutTrace: a session Launch left without a trace (or none)
// has nothing to close.
func TestCloseWithoutTrace(t *testing.T) {
	var nilSession *Session
	for _, s := range []*Session{nilSession, {}} {
		if err := s.Close(); err != nil {
			t.Errorf("Close = %v, want nil", err)
		}
	}
}
