package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestUnplantLogs: links planted at appended logs' names (and a folder
// that is a link) are removed and noted in the trace; a real log stays.
func TestUnplantLogs(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(t.TempDir(), "hostfile")
	if err := os.WriteFile(host, []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "logs"), 0o755))
	must(os.Symlink(host, filepath.Join(dir, "logs", "bootstrap.log")))
	must(os.Symlink(host, filepath.Join(dir, "logs", "hook-audit.log")))
	must(os.WriteFile(filepath.Join(dir, "logs", "components.jsonl"), []byte("{}\n"), 0o644))
	must(os.Symlink("logs", filepath.Join(dir, "out")))
	tr, err := trace.Create(filepath.Join(dir, "trace.jsonl"), "ses_1", time.Now)
	must(err)
	must(unplantLogs(dir, tr, true))
	must(tr.Close())
	var got []string
	for _, l := range tr.Lines() {
		got = append(got, string(l.JSON))
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{`"path":"out","found":"a symlink"`, `"path":"logs/bootstrap.log","found":"a symlink"`, `"path":"logs/hook-audit.log","found":"a symlink"`} {
		if !strings.Contains(all, want) {
			t.Errorf("trace lack %s:\n%s", want, all)
		}
	}
	if strings.Contains(all, "components.jsonl") {
		t.Errorf("a real log was noted:\n%s", all)
	}
	for _, n := range []string{"out", "logs/bootstrap.log", "logs/hook-audit.log"} {
		if _, err := os.Lstat(filepath.Join(dir, n)); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", n, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "components.jsonl")); err != nil {
		t.Errorf("components.jsonl: %v", err)
	}
	if b, _ := os.ReadFile(host); string(b) != "host\n" {
		t.Errorf("host file = %q", b)
	}
}
