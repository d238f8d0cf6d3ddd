package trend

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestWriteFile: the page is written whole under its name, readable by
// everyone, with its size returned and no temporary file left; a folder
// that does not exist is an I/O error.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	size, err := WriteFile(path, Build([]*Run{fakeRun(0, []string{"P", "F"})}, DefaultOptions()), "t")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != size || size == 0 || fi.Mode().Perm() != 0o644 {
		t.Errorf("page %v, %v; size %d", fi, err, size)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want the page alone", len(entries))
	}
	if _, err := WriteFile(filepath.Join(dir, "none", "r.html"), Build([]*Run{fakeRun(0, []string{"P", "F"})}, DefaultOptions()), ""); errcode.Code(err) != errcode.IO {
		t.Errorf("missing folder: code %q, want %s", errcode.Code(err), errcode.IO)
	}
}
