package workspace

import (
	"archive/tar"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestHostileArchivesRefused: every entry a .mur.zip would refuse, and
// what a workspace must refuse besides, fails the whole workspace with its
// code, and nothing lands outside the base.
func TestHostileArchivesRefused(t *testing.T) {
	small := Limits{MaxEntries: 10, MaxBytes: 1000, MaxEntryBytes: 600}
	big := strings.Repeat("x", 700)
	tests := []struct {
		name string
		kind string
		data func(t *testing.T) []byte
		code string
	}{
		{"tar dot-dot", "tar", func(t *testing.T) []byte { return buildTar(t, false, file("../escape.txt", "x")) }, errcode.WorkspaceEntry},
		{"tar nested dot-dot", "tar", func(t *testing.T) []byte { return buildTar(t, false, file("a/../../escape.txt", "x")) }, errcode.WorkspaceEntry},
		{"tar absolute", "tar", func(t *testing.T) []byte { return buildTar(t, false, file("/tmp/escape.txt", "x")) }, errcode.WorkspaceEntry},
		{"tar link absolute", "tar", func(t *testing.T) []byte {
			return buildTar(t, false, tarEntry{name: "passwd", link: "/etc/passwd", typ: tar.TypeSymlink})
		}, errcode.WorkspaceEntry},
		{"tar link out", "tar", func(t *testing.T) []byte {
			return buildTar(t, false, tarEntry{name: "a/up", link: "../../x", typ: tar.TypeSymlink})
		}, errcode.WorkspaceEntry},
		{"tar write through link", "tar", func(t *testing.T) []byte {
			return buildTar(t, false, tarEntry{name: "l", link: "d", typ: tar.TypeSymlink}, file("l/x", "x"))
		}, errcode.WorkspaceEntry},
		{"tar link out through a link", "tar", func(t *testing.T) []byte {
			return buildTar(t, false, tarEntry{name: "d/l1", link: "..", typ: tar.TypeSymlink},
				tarEntry{name: "l2", link: "d/l1/../escape.txt", typ: tar.TypeSymlink})
		}, errcode.WorkspaceEntry},
		{"tar link loop", "tar", func(t *testing.T) []byte {
			return buildTar(t, false, tarEntry{name: "a", link: "b", typ: tar.TypeSymlink}, tarEntry{name: "b", link: "a", typ: tar.TypeSymlink})
		}, errcode.WorkspaceEntry},
		{"tar char device", "tar", func(t *testing.T) []byte { return buildTar(t, false, tarEntry{name: "null", typ: tar.TypeChar}) }, errcode.WorkspaceEntry},
		{"tar fifo", "tar", func(t *testing.T) []byte { return buildTar(t, false, tarEntry{name: "p", typ: tar.TypeFifo}) }, errcode.WorkspaceEntry},
		{"tar hard link out", "tar", func(t *testing.T) []byte {
			return buildTar(t, false, tarEntry{name: "h", link: "/etc/shadow", typ: tar.TypeLink})
		}, errcode.WorkspaceEntry},
		{"tar duplicate", "tar", func(t *testing.T) []byte { return buildTar(t, false, file("a", "1"), file("a", "2")) }, errcode.WorkspaceEntry},
		{"tar reserved name", "tar", func(t *testing.T) []byte { return buildTar(t, false, file("task.md", "x")) }, errcode.WorkspaceEntry},
		{"tar reserved folder", "tar", func(t *testing.T) []byte { return buildTar(t, false, file("tools/t/murmur.yaml", "x")) }, errcode.WorkspaceEntry},
		{"tar backslash", "tar", func(t *testing.T) []byte { return buildTar(t, false, file(`..\x`, "x")) }, errcode.WorkspaceEntry},
		{"tar too many entries", "tar", func(t *testing.T) []byte {
			var es []tarEntry
			for i := range 11 {
				es = append(es, file(strings.Repeat("f", i+1), ""))
			}
			return buildTar(t, false, es...)
		}, errcode.WorkspaceLimit},
		{"tar file too large", "tar", func(t *testing.T) []byte { return buildTar(t, false, file("big", big)) }, errcode.WorkspaceLimit},
		{"tgz bomb past total", "tar.gz", func(t *testing.T) []byte {
			return buildTar(t, true, file("a", big[:500]), file("b", big[:500]), file("c", big[:500]))
		}, errcode.WorkspaceLimit},
		{"tgz garbage", "tar.gz", func(t *testing.T) []byte { return []byte("not gzip") }, errcode.IO},
		{"zip dot-dot", "zip", func(t *testing.T) []byte { return buildZip(t, zipEntry{name: "../x", body: "x"}) }, errcode.WorkspaceEntry},
		{"zip absolute", "zip", func(t *testing.T) []byte { return buildZip(t, zipEntry{name: "/x", body: "x"}) }, errcode.WorkspaceEntry},
		{"zip drive", "zip", func(t *testing.T) []byte { return buildZip(t, zipEntry{name: "C:/x", body: "x"}) }, errcode.WorkspaceEntry},
		{"zip link out", "zip", func(t *testing.T) []byte {
			return buildZip(t, zipEntry{name: "l", body: "../../etc/passwd", mode: fs.ModeSymlink})
		}, errcode.WorkspaceEntry},
		{"zip link absolute", "zip", func(t *testing.T) []byte {
			return buildZip(t, zipEntry{name: "l", body: "/etc/passwd", mode: fs.ModeSymlink})
		}, errcode.WorkspaceEntry},
		{"zip duplicate", "zip", func(t *testing.T) []byte {
			return buildZip(t, zipEntry{name: "a", body: "1"}, zipEntry{name: "a", body: "2"})
		}, errcode.WorkspaceEntry},
		{"zip too large", "zip", func(t *testing.T) []byte { return buildZip(t, zipEntry{name: "big", body: big}) }, errcode.WorkspaceLimit},
		{"zip garbage", "zip", func(t *testing.T) []byte { return []byte("PK\x03\x04 nope") }, errcode.IO},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "ws."+tt.kind)
			if err := os.WriteFile(src, tt.data(t), 0o644); err != nil {
				t.Fatal(err)
			}
			baseDir := filepath.Join(dir, "run", DirName, "b")
			_, err := Prepare(t.Context(), src, tt.kind, baseDir, small)
			if got := errcode.Code(err); got != tt.code {
				t.Fatalf("Prepare() code %q (%v), want %q", got, err, tt.code)
			}
			if _, serr := os.Stat(filepath.Join(dir, "escape.txt")); serr == nil {
				t.Fatal("an entry was written outside the base")
			}
			if _, serr := os.Stat(baseDir); serr == nil {
				t.Error("a refused workspace left its base behind")
			}
		})
	}
}

// TestArchivesUnpack: the three archive kinds and a folder give the same
// base, links inside kept, exec bits kept, read-only.
func TestArchivesUnpack(t *testing.T) {
	entries := []tarEntry{
		{name: "src/", typ: tar.TypeDir},
		file("src/main.go", "package main\n"),
		file("README", "hi\n"),
		{name: "src/link", link: "../README", typ: tar.TypeSymlink},
		{name: "copy", link: "README", typ: tar.TypeLink},
	}
	for _, kind := range []string{"tar", "tar.gz"} {
		b, err := prepareBytes(t, kind, buildTar(t, kind == "tar.gz", entries...), DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if b.Files != 3 {
			t.Errorf("%s: %d files, want 3", kind, b.Files)
		}
		if got := mustRead(t, filepath.Join(b.Dir, "copy")); got != "hi\n" {
			t.Errorf("%s: hard link copied as %q", kind, got)
		}
		if tgt, _ := os.Readlink(filepath.Join(b.Dir, "src/link")); tgt != "../README" {
			t.Errorf("%s: link target %q", kind, tgt)
		}
		fi, _ := os.Stat(filepath.Join(b.Dir, "README"))
		if fi.Mode().Perm()&0o222 != 0 {
			t.Errorf("%s: base file mode %v, want read-only", kind, fi.Mode())
		}
	}
	z := buildZip(t, zipEntry{name: "src/", mode: fs.ModeDir}, zipEntry{name: "src/main.go", body: "package main\n"},
		zipEntry{name: "run.sh", body: "#!/bin/sh\n", mode: 0o100}, zipEntry{name: "l", body: "src/main.go", mode: fs.ModeSymlink})
	b, err := prepareBytes(t, "zip", z, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(b.Dir, "run.sh")); fi.Mode().Perm() != 0o555 {
		t.Errorf("run.sh mode %v, want r-xr-xr-x", fi.Mode())
	}
}

// TestFolderSourceChecked: a folder with a link out, or a FIFO, is refused.
func TestFolderSourceChecked(t *testing.T) {
	for name, setup := range map[string]func(dir string) error{
		"link out": func(dir string) error { return os.Symlink("/etc/passwd", filepath.Join(dir, "p")) },
		"link up":  func(dir string) error { return os.Symlink("../secret", filepath.Join(dir, "p")) },
		"fifo":     func(dir string) error { return mkfifo(filepath.Join(dir, "f")) },
		"reserved": func(dir string) error { return os.Mkdir(filepath.Join(dir, "out"), 0o755) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src")
			writeFiles(t, src, map[string]string{"a.txt": "a"})
			if err := setup(src); err != nil {
				t.Fatal(err)
			}
			_, err := Prepare(t.Context(), src, "dir", filepath.Join(dir, "base"), DefaultLimits())
			if got := errcode.Code(err); got != errcode.WorkspaceEntry {
				t.Fatalf("Prepare() code %q (%v), want %q", got, err, errcode.WorkspaceEntry)
			}
		})
	}
}
