package session

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/trace"
)

// BenchmarkSessionClose is what closing a trivial case's session costs
// (issue 38): the trace's one flush and close, with the planted-file
// checks (reached: unplantLogs' lstat calls, the trace's reclaim) and
// without them (untouched). Each iteration closes a fresh session folder
// with logs/ and out/, as Stage makes them; opening the trace is outside
// the timer.
func BenchmarkSessionClose(b *testing.B) {
	for _, bc := range []struct {
		name      string
		untouched func() bool
	}{
		{"reached", func() bool { return false }},
		{"untouched", func() bool { return true }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			root := b.TempDir()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				dir := filepath.Join(root, strconv.Itoa(i))
				for _, d := range []string{"logs", "out"} {
					if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
						b.Fatal(err)
					}
				}
				tw, err := trace.Create(filepath.Join(dir, "trace.jsonl"), "ses_x", time.Now)
				if err != nil {
					b.Fatal(err)
				}
				if err := tw.SessionEnd(trace.ExitOK); err != nil {
					b.Fatal(err)
				}
				s := &Session{Dir: dir, Trace: tw, Untouched: bc.untouched}
				b.StartTimer()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
