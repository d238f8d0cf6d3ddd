package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloseSkipsTheChecksOfAnUntouchedSession: when Untouched says no
// untrusted code had the folder, Close neither removes what is at a
// log's name nor notes it (a link planted at logs/components.jsonl
// stays, and no session_file_replaced is written); when it says the
// folder was reached, or there is no Untouched, the link is removed and
// noted as before.
func TestCloseSkipsTheChecksOfAnUntouchedSession(t *testing.T) {
	no, yes := func() bool { return false }, func() bool { return true }
	for _, tt := range []struct {
		name      string
		untouched func() bool
		checked   bool
	}{
		{"untouched", yes, false},
		{"reached", no, true},
		{"nil", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			host := filepath.Join(t.TempDir(), "hostfile")
			if err := os.WriteFile(host, []byte("host\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(dir, "logs"), 0o755); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "logs", "components.jsonl")
			if err := os.Symlink(host, link); err != nil {
				t.Fatal(err)
			}
			tw := newTrace(t, dir)
			s := &Session{Dir: dir, Trace: tw, Untouched: tt.untouched}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			noted := strings.Contains(string(b), `"event_type":"session_file_replaced","session_id":"ses_x"`) &&
				strings.Contains(string(b), `"path":"logs/components.jsonl","found":"a symlink"`)
			_, lerr := os.Lstat(link)
			if noted != tt.checked || os.IsNotExist(lerr) != tt.checked {
				t.Errorf("noted %v, link removed %v; want both %v\ntrace:\n%s", noted, os.IsNotExist(lerr), tt.checked, b)
			}
			if b, _ := os.ReadFile(host); string(b) != "host\n" {
				t.Errorf("host file = %q", b)
			}
		})
	}
}
