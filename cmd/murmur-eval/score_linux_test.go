package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestCopySession copies a session folder holding what a tool may leave:
// files, folders, a link out of the folder, a link in it, a FIFO. The
// copy has the files and folders, the links as links (never followed:
// the file the link out names is not copied), no FIFO; the source is
// unchanged.
func TestCopySession(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	writeFile(t, outside, "host secret")
	src := filepath.Join(t.TempDir(), "ses")
	writeFile(t, filepath.Join(src, "out", "result.txt"), "42")
	writeFile(t, filepath.Join(src, "notes", "a.md"), "- eggs\n")
	if err := os.Chmod(filepath.Join(src, "notes", "a.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"out-link": outside, "notes/in-link": "a.md"} {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "copy")
	bytes, entries, err := copySession(src, dst)
	if err != nil {
		t.Fatalf("copySession: %v", err)
	}
	if bytes != 9 || entries != 8 {
		t.Errorf("copied %d bytes and %d entries, want 9 and 8 (the FIFO counted, not copied)", bytes, entries)
	}
	got := map[string]string{}
	err = filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dst {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			got[rel] = "-> " + target
			return err
		case fi.IsDir():
			got[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			got[rel] = fi.Mode().Perm().String() + " " + string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"out":            "dir",
		"out/result.txt": "-rw-r--r-- 42",
		"notes":          "dir",
		"notes/a.md":     "-rw------- - eggs\n",
		"notes/in-link":  "-> a.md",
		"out-link":       "-> " + outside,
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("the copy (-want +got):\n%s", diff)
	}
	if _, _, err := copySession(src, dst); err == nil {
		t.Error("a second copy into the same folder: no error")
	}
}
