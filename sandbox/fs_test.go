package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// TestGuestFSProtectsSharedFiles: a file hard-linked from outside the
// guest's folder can be read but not written, truncated, chmod-ed or
// touched; the guest's own files can.
func TestGuestFSProtectsSharedFiles(t *testing.T) {
	outside, dir := t.TempDir(), t.TempDir()
	shared := filepath.Join(outside, "calc.wasm")
	if err := os.WriteFile(shared, []byte("module"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(shared, filepath.Join(dir, "calc.wasm")); err != nil {
		t.Skipf("hard links unavailable: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "own.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := openTestFS(t, dir)
	for _, flag := range []experimentalsys.Oflag{experimentalsys.O_WRONLY, experimentalsys.O_RDWR, experimentalsys.O_RDONLY | experimentalsys.O_TRUNC, experimentalsys.O_WRONLY | experimentalsys.O_APPEND} {
		if f, errno := g.OpenFile("calc.wasm", flag, 0); errno != experimentalsys.EACCES {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenFile(shared, %v) = %v, want EACCES", flag, errno)
		}
	}
	if errno := g.Chmod("calc.wasm", 0o777); errno != experimentalsys.EPERM {
		t.Errorf("Chmod(shared) = %v, want EPERM", errno)
	}
	if errno := g.Utimens("calc.wasm", 0, 0); errno != experimentalsys.EPERM {
		t.Errorf("Utimens(shared) = %v, want EPERM", errno)
	}
	if errno := g.Rename("calc.wasm", "moved.wasm"); errno != 0 {
		t.Fatalf("Rename(shared) = %v, want it allowed", errno)
	}
	if _, errno := g.OpenFile("moved.wasm", experimentalsys.O_WRONLY, 0); errno != experimentalsys.EACCES {
		t.Errorf("OpenFile(renamed shared, write) = %v, want EACCES", errno)
	}
	f, errno := g.OpenFile("moved.wasm", experimentalsys.O_RDONLY, 0)
	if errno != 0 {
		t.Fatalf("OpenFile(shared, read) = %v", errno)
	}
	f.Close()
	f, errno = g.OpenFile("own.txt", experimentalsys.O_WRONLY|experimentalsys.O_TRUNC, 0)
	if errno != 0 {
		t.Fatalf("OpenFile(own, write) = %v", errno)
	}
	f.Close()
	if errno := g.Symlink("../etc/passwd", "escape"); errno != experimentalsys.EPERM {
		t.Errorf("Symlink = %v, want EPERM", errno)
	}
	if got, _ := os.ReadFile(shared); string(got) != "module" {
		t.Errorf("shared file now %q", got)
	}
}

// openTestFS opens dir as a guest file system closed at the end of the test.
func openTestFS(t testing.TB, dir string) *guestFS {
	t.Helper()
	g, err := openGuestFS("", dir)
	if err != nil {
		t.Fatalf("openGuestFS(%s): %v", dir, err)
	}
	t.Cleanup(g.close)
	return g
}
