package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// BenchmarkCallFiles runs the files guest once per iteration: a read, two
// writes, a mkdir, a directory listing and a few refused escapes, so the
// figure includes the guest file system's own cost per operation.
func BenchmarkCallFiles(b *testing.B) {
	e := newTestEngine(b, Config{})
	m := compileGuest(b, e, "files")
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("staged"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if out, err := e.Run(b.Context(), m, Call{Dir: dir}); err != nil || out.ExitCode != 0 {
			b.Fatalf("Run = %v, %v", out, err)
		}
	}
}

// BenchmarkGuestFS compares the guest file system with wazero's DirFS,
// which it replaced, operation by operation: mounting a folder (per call),
// opening and closing a file two folders down, and a stat.
func BenchmarkGuestFS(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "b", "f.txt"), []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	mounts := []struct {
		name  string
		mount func() (experimentalsys.FS, func())
	}{
		{"os.Root", func() (experimentalsys.FS, func()) {
			g, err := openGuestFS("", dir)
			if err != nil {
				b.Fatal(err)
			}
			return g, g.close
		}},
		{"DirFS", func() (experimentalsys.FS, func()) {
			if err := os.MkdirAll(dir, 0o755); err != nil { // as Run did before
				b.Fatal(err)
			}
			return sysfs.DirFS(dir), func() {}
		}},
	}
	for _, m := range mounts {
		b.Run("mount/"+m.name, func(b *testing.B) {
			for b.Loop() {
				_, closeFS := m.mount()
				closeFS()
			}
		})
		fsys, closeFS := m.mount()
		b.Run("open/"+m.name, func(b *testing.B) {
			for b.Loop() {
				f, errno := fsys.OpenFile("a/b/f.txt", experimentalsys.O_RDONLY, 0)
				if errno != 0 {
					b.Fatal(errno)
				}
				f.Close()
			}
		})
		b.Run("stat/"+m.name, func(b *testing.B) {
			for b.Loop() {
				if _, errno := fsys.Stat("a/b/f.txt"); errno != 0 {
					b.Fatal(errno)
				}
			}
		})
		closeFS()
	}
}
