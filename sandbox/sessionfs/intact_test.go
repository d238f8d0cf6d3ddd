package sessionfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestIntact: a session whose logs are murmur-eval's own regular files is
// intact; a link, FIFO or folder at a log's name (a hook log found by
// pattern included), or a folder replaced by a link, is not.
func TestIntact(t *testing.T) {
	host := filepath.Join(t.TempDir(), "hostfile")
	if err := os.WriteFile(host, []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{"logs/bootstrap.log", "out/compaction-summaries.jsonl", "logs/hook-*.log"}
	for _, tc := range []struct {
		name string
		make func(dir string) error
		want bool
	}{
		{"clean", func(string) error { return nil }, true},
		{"absent folders", func(dir string) error { return os.RemoveAll(filepath.Join(dir, "out")) }, true},
		{"link at a log", func(dir string) error {
			return os.Symlink(host, filepath.Join(dir, "logs", "bootstrap.log"))
		}, false},
		{"fifo at a hook log", func(dir string) error {
			return syscall.Mkfifo(filepath.Join(dir, "logs", "hook-audit.log"), 0o644)
		}, false},
		{"folder at a log", func(dir string) error {
			return os.Mkdir(filepath.Join(dir, "out", "compaction-summaries.jsonl"), 0o755)
		}, false},
		{"hard link at a log", func(dir string) error {
			return os.Link(filepath.Join(dir, "logs", "components.jsonl"), filepath.Join(dir, "logs", "bootstrap.log"))
		}, false},
		{"folder replaced by a link", func(dir string) error {
			if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
				return err
			}
			return os.Symlink(filepath.Dir(host), filepath.Join(dir, "out"))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"logs", "out"} {
				if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{"logs/components.jsonl", "logs/hook-ok.log"} {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.make(dir); err != nil {
				t.Fatal(err)
			}
			if got := Intact(dir, []string{"logs", "out"}, files); got != tc.want {
				t.Errorf("Intact = %v, want %v", got, tc.want)
			}
		})
	}
}
