package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestReachable(t *testing.T) {
	// Not t.TempDir: its parent is private. os.TempDir is searchable by all.
	base, err := os.MkdirTemp("", "reachable-")
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
	if os.Getuid() != 0 {
		// The tool user is murmur-eval's own: its own private folders are
		// reachable.
		if err := Reachable(filepath.Join(private, "run"), "tools"); err != nil {
			t.Errorf("Reachable(private) as uid %d = %v, want nil", os.Getuid(), err)
		}
		return
	}
	if parent := filepath.Dir(base); Reachable(parent, "tools") != nil {
		t.Skipf("%s is not searchable by others on this machine", parent)
	}
	if err := Reachable(filepath.Join(open, "run"), "tools"); err != nil {
		t.Errorf("Reachable(open) = %v, want nil", err)
	}
	if err := Reachable(filepath.Join(private, "run"), "tools"); errcode.Code(err) != errcode.IOPermission {
		t.Errorf("Reachable(private) = %v, want E-IO-002", err)
	}
}
