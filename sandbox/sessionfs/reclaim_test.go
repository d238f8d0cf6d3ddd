package sessionfs

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReclaim: a file held open whose name a "tool" replaced (by a link
// to a host file, a FIFO, a folder, a file of its own, a hard link,
// nothing) gets its content back at the name, in a fresh regular file,
// and Reclaim says what it found; the host file is untouched and the
// tool's renamed copy stays.
func TestReclaim(t *testing.T) {
	host := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(host, []byte("root:x:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		swap  func(dir string) error // what the tool does after renaming the file to t2
		found string
	}{
		{"untouched", nil, ""},
		{"symlink", func(dir string) error { return os.Symlink(host, filepath.Join(dir, "trace.jsonl")) }, "a symlink"},
		{"fifo", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "trace.jsonl"), 0o644) }, "a FIFO"},
		{"folder", func(dir string) error {
			return os.MkdirAll(filepath.Join(dir, "trace.jsonl", "x"), 0o755)
		}, "a folder"},
		{"file", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "trace.jsonl"), []byte("forged\n"), 0o644)
		}, "another file"},
		{"hardlink", func(dir string) error { return os.Link(filepath.Join(dir, "t2"), filepath.Join(dir, "trace.jsonl")) }, "a hard link"},
		{"nothing", func(string) error { return nil }, "nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "trace.jsonl")
			held, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			if _, err := held.WriteString("line 1\n"); err != nil {
				t.Fatal(err)
			}
			if tt.swap != nil {
				if err := os.Rename(p, filepath.Join(dir, "t2")); err != nil {
					t.Fatal(err)
				}
				if err := tt.swap(dir); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := held.WriteString("line 2\n"); err != nil { // the harness goes on writing
				t.Fatal(err)
			}
			r, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			fresh, found, err := r.Reclaim("trace.jsonl", held)
			if err != nil {
				t.Fatalf("Reclaim: %v", err)
			}
			if found != tt.found || (fresh == nil) != (tt.found == "") {
				t.Fatalf("Reclaim found %q (fresh %v), want %q", found, fresh != nil, tt.found)
			}
			if fresh != nil {
				if _, err := io.WriteString(fresh, "line 3\n"); err != nil {
					t.Fatal(err)
				}
				fresh.Close()
			}
			fi, err := os.Lstat(p)
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("trace.jsonl after Reclaim: %v, %v; want a regular file", fi, err)
			}
			want := "line 1\nline 2\n"
			if fresh != nil {
				want += "line 3\n"
			}
			if b, _ := os.ReadFile(p); string(b) != want {
				t.Errorf("trace.jsonl = %q, want %q", b, want)
			}
			if b, _ := os.ReadFile(host); string(b) != "root:x:0:0\n" {
				t.Errorf("host file = %q: written through", b)
			}
			if tt.swap != nil {
				if b, _ := os.ReadFile(filepath.Join(dir, "t2")); string(b) != "line 1\nline 2\n" {
					t.Errorf("the tool's renamed copy = %q, want it left as it was", b)
				}
			}
		})
	}
}
