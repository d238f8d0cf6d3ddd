package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("template failed")
	if _, err := Write(path, func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return failed }); !errors.Is(err, failed) {
		t.Fatalf("err = %v, want the fill's", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("a failed write left %q, want the old file", b)
	}
	size, err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "new page"); return err })
	if err != nil || size != 8 {
		t.Fatalf("size %d, err %v", size, err)
	}
	fi, _ := os.Stat(path)
	b, _ := os.ReadFile(path)
	if string(b) != "new page" || fi.Mode().Perm() != 0o644 {
		t.Errorf("file %q mode %v", b, fi.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries left in the folder, want the page alone", len(entries))
	}
}
