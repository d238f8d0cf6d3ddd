package verify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestSearchable(t *testing.T) {
	// Not t.TempDir: its parent is private. os.TempDir is searchable by all.
	base, err := os.MkdirTemp("", "searchable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(base, "private")
	open := filepath.Join(base, "open")
	for dir, mode := range map[string]os.FileMode{private: 0o700, open: 0o711} {
		if err := os.MkdirAll(filepath.Join(dir, "run"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
	}
	if parent := filepath.Dir(base); !isSearchableChain(parent) {
		t.Skipf("%s is not searchable by others on this machine", parent)
	}
	if err := searchable(filepath.Join(open, "run")); err != nil {
		t.Errorf("searchable(open) = %v, want nil", err)
	}
	if err := searchable(filepath.Join(private, "run")); errcode.Code(err) != errcode.IOPermission {
		t.Errorf("searchable(private) = %v, want E-IO-002", err)
	}
}

func isSearchableChain(dir string) bool { return searchable(dir) == nil }
