//go:build unix

package sessionfs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// hostile is a session folder next to a "host" folder holding a secret
// file, the shapes a tool leaves behind.
type hostile struct {
	top, sess, host, secret string
}

const secretText = "host secret\n"

func newHostile(t *testing.T) hostile {
	t.Helper()
	top := t.TempDir()
	h := hostile{top: top, sess: filepath.Join(top, "sess"), host: filepath.Join(top, "host")}
	h.secret = filepath.Join(h.host, "secret")
	for _, d := range []string{h.sess, h.host, filepath.Join(h.sess, "out"), filepath.Join(h.sess, "logs")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(h.secret, []byte(secretText), 0o644))
	return h
}

// intact fails the test if the host folder holds anything but the
// unchanged secret.
func (h hostile) intact(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(h.secret)
	if err != nil || string(b) != secretText {
		t.Errorf("host secret = %q, %v; want it unchanged", b, err)
	}
	des, _ := os.ReadDir(h.host)
	if len(des) != 1 {
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		t.Errorf("host folder holds %v, want only secret", names)
	}
	des, _ = os.ReadDir(h.top)
	if len(des) != 2 {
		t.Errorf("the folder above the session holds %d entries, want sess and host", len(des))
	}
}

func (h hostile) p(name string) string { return filepath.Join(h.sess, filepath.FromSlash(name)) }

// mkfifo, mknod and a hard link are the shapes that need the OS.
func mkfifo(t *testing.T, p string) { must(t, syscall.Mkfifo(p, 0o666)) }

func mknod(t *testing.T, p string) {
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // /dev/null's 1:3
		t.Skipf("mknod needs root: %v", err)
	}
}

// prompt fails the test when f takes longer than a FIFO may make it wait.
func prompt(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked for 5 s (a FIFO was opened blocking?)")
	}
}

func TestReadFileHostile(t *testing.T) {
	tests := []struct {
		name     string
		plant    func(t *testing.T, h hostile)
		read     string
		max      int64
		want     string
		wantCode string
	}{
		{name: "regular", read: "out/result.txt", max: 100, want: "ok",
			plant: func(t *testing.T, h hostile) { must(t, os.WriteFile(h.p("out/result.txt"), []byte("ok"), 0o644)) }},
		{name: "symlink to a host file", read: "out/result.txt", max: 100, wantCode: errcode.SessionFile,
			plant: func(t *testing.T, h hostile) { must(t, os.Symlink(h.secret, h.p("out/result.txt"))) }},
		{name: "relative symlink out", read: "x", max: 100, wantCode: errcode.SessionFile,
			plant: func(t *testing.T, h hostile) { must(t, os.Symlink("../host/secret", h.p("x"))) }},
		{name: "folder symlinked to the host", read: "out/secret", max: 100, wantCode: errcode.SessionFile,
			plant: func(t *testing.T, h hostile) {
				must(t, os.RemoveAll(h.p("out")))
				must(t, os.Symlink(h.host, h.p("out")))
			}},
		{name: "symlink inside the root", read: "logs/a", max: 100, want: "inside",
			plant: func(t *testing.T, h hostile) {
				must(t, os.WriteFile(h.p("b"), []byte("inside"), 0o644))
				must(t, os.Symlink("../b", h.p("logs/a")))
			}},
		{name: "dangling link inside", read: "x", max: 100, wantCode: errcode.IONotFound,
			plant: func(t *testing.T, h hostile) { must(t, os.Symlink("missing", h.p("x"))) }},
		{name: "dangling link out", read: "x", max: 100, wantCode: errcode.SessionFile,
			plant: func(t *testing.T, h hostile) { must(t, os.Symlink(filepath.Join(h.host, "nothing"), h.p("x"))) }},
		{name: "missing", read: "nothing", max: 100, wantCode: errcode.IONotFound},
		{name: "dot-dot name", read: "../host/secret", max: 100, wantCode: errcode.SessionFile},
		{name: "inner dot-dot name", read: "out/../../host/secret", max: 100, wantCode: errcode.SessionFile},
		{name: "absolute name", read: "/etc/passwd", max: 100, wantCode: errcode.SessionFile},
		{name: "empty name", read: "", max: 100, wantCode: errcode.SessionFile},
		{name: "dot", read: ".", max: 100, wantCode: errcode.SessionFile},
		{name: "folder", read: "out", max: 100, wantCode: errcode.SessionFile},
		{name: "fifo", read: "eval.jsonl", max: 100, wantCode: errcode.SessionFile,
			plant: func(t *testing.T, h hostile) { mkfifo(t, h.p("eval.jsonl")) }},
		{name: "link to a fifo", read: "x", max: 100, wantCode: errcode.SessionFile,
			plant: func(t *testing.T, h hostile) { mkfifo(t, h.p("f")); must(t, os.Symlink("f", h.p("x"))) }},
		{name: "device", read: "dev", max: 100, wantCode: errcode.SessionFile,
			plant: func(t *testing.T, h hostile) { mknod(t, h.p("dev")) }},
		{name: "hard link to a host file is read (no escape: the tool could read it)", read: "hl", max: 100, want: secretText,
			plant: func(t *testing.T, h hostile) { must(t, os.Link(h.secret, h.p("hl"))) }},
		{name: "too large", read: "big", max: 10, wantCode: errcode.SessionFile,
			plant: func(t *testing.T, h hostile) { must(t, os.WriteFile(h.p("big"), make([]byte, 11), 0o644)) }},
		{name: "at the bound", read: "big", max: 10, want: "0123456789",
			plant: func(t *testing.T, h hostile) { must(t, os.WriteFile(h.p("big"), []byte("0123456789"), 0o644)) }},
		{name: "sparse claims a huge size", read: "sparse", max: 1 << 20, wantCode: errcode.SessionFile,
			plant: func(t *testing.T, h hostile) {
				f, err := os.Create(h.p("sparse"))
				must(t, err)
				must(t, f.Truncate(1<<40))
				must(t, f.Close())
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostile(t)
			if tt.plant != nil {
				tt.plant(t, h)
			}
			var got []byte
			var err error
			prompt(t, func() { got, err = ReadFile(h.sess, tt.read, tt.max) })
			if tt.wantCode != "" {
				if code := errcode.Code(err); code != tt.wantCode {
					t.Fatalf("ReadFile(%q) = %q, %v (code %q); want code %s", tt.read, got, err, code, tt.wantCode)
				}
				if tt.wantCode == errcode.IONotFound && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("error %v does not wrap fs.ErrNotExist", err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReadFile(%q) = %q, %v; want %q", tt.read, got, err, tt.want)
			}
			h.intact(t)
		})
	}
}

func TestWriteFileHostile(t *testing.T) {
	tests := []struct {
		name     string
		plant    func(t *testing.T, h hostile)
		write    string
		wantCode string
	}{
		{name: "fresh", write: "out/result.txt"},
		{name: "existing file", write: "out/result.txt",
			plant: func(t *testing.T, h hostile) {
				must(t, os.WriteFile(h.p("out/result.txt"), []byte("old old old"), 0o644))
			}},
		{name: "symlink to a host file", write: "out/result.txt",
			plant: func(t *testing.T, h hostile) { must(t, os.Symlink(h.secret, h.p("out/result.txt"))) }},
		{name: "dangling symlink out", write: "out/result.txt",
			plant: func(t *testing.T, h hostile) {
				must(t, os.Symlink(filepath.Join(h.host, "new"), h.p("out/result.txt")))
			}},
		{name: "out symlinked to a host folder", write: "out/result.txt",
			plant: func(t *testing.T, h hostile) {
				must(t, os.RemoveAll(h.p("out")))
				must(t, os.Symlink(h.host, h.p("out")))
			}},
		{name: "logs symlinked to out", write: "logs/shell-1.log",
			plant: func(t *testing.T, h hostile) {
				must(t, os.RemoveAll(h.p("logs")))
				must(t, os.Symlink("out", h.p("logs")))
			}},
		{name: "out symlinked to a folder inside the session", write: "out/result.txt",
			plant: func(t *testing.T, h hostile) {
				must(t, os.RemoveAll(h.p("out")))
				must(t, os.Symlink("logs", h.p("out")))
			}},
		{name: "parent is a file", write: "out/result.txt",
			plant: func(t *testing.T, h hostile) {
				must(t, os.RemoveAll(h.p("out")))
				must(t, os.WriteFile(h.p("out"), nil, 0o644))
			}},
		{name: "hard link to a host file", write: "eval.jsonl",
			plant: func(t *testing.T, h hostile) { must(t, os.Link(h.secret, h.p("eval.jsonl"))) }},
		{name: "fifo", write: "eval.jsonl",
			plant: func(t *testing.T, h hostile) { mkfifo(t, h.p("eval.jsonl")) }},
		{name: "device", write: "eval.jsonl",
			plant: func(t *testing.T, h hostile) { mknod(t, h.p("eval.jsonl")) }},
		{name: "folder holding a link out", write: "eval.jsonl",
			plant: func(t *testing.T, h hostile) {
				must(t, os.Mkdir(h.p("eval.jsonl"), 0o755))
				must(t, os.Symlink(h.host, h.p("eval.jsonl/h")))
			}},
		{name: "dot-dot name", write: "../host/secret", wantCode: errcode.SessionFile},
		{name: "absolute name", write: h0secret, wantCode: errcode.SessionFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostile(t)
			if tt.plant != nil {
				tt.plant(t, h)
			}
			var err error
			prompt(t, func() { err = WriteFile(h.sess, tt.write, []byte("written"), 0o644) })
			defer h.intact(t)
			if tt.wantCode != "" {
				if code := errcode.Code(err); code != tt.wantCode {
					t.Fatalf("WriteFile(%q) = %v (code %q); want code %s", tt.write, err, code, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("WriteFile(%q) = %v", tt.write, err)
			}
			fi, err := os.Lstat(h.p(tt.write))
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("after WriteFile %s is %v, %v; want a regular file", tt.write, fi, err)
			}
			if b, _ := os.ReadFile(h.p(tt.write)); string(b) != "written" {
				t.Errorf("%s holds %q, want %q", tt.write, b, "written")
			}
			for d := filepath.Dir(tt.write); d != "."; d = filepath.Dir(d) {
				if fi, err := os.Lstat(h.p(d)); err != nil || !fi.IsDir() {
					t.Errorf("after WriteFile the parent %s is %v, %v; want a real folder, never a link", d, fi, err)
				}
			}
			if des, _ := os.ReadDir(h.p("logs")); tt.write == "out/result.txt" && len(des) != 0 {
				t.Errorf("logs/ holds %d entries; want the write never behind a link into it", len(des))
			}
		})
	}
}

// h0secret is an absolute name for the table (any absolute name is
// refused before it is resolved).
const h0secret = "/etc/murmur-eval-test-never-written"

func TestOpenAppendHostile(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, h hostile)
		want  string // the log's content after appending "line\n"
	}{
		{name: "fresh", want: "line\n"},
		{name: "own log kept", want: "first\nline\n",
			plant: func(t *testing.T, h hostile) {
				must(t, os.WriteFile(h.p("logs/bootstrap.log"), []byte("first\n"), 0o644))
			}},
		{name: "symlink to a host file", want: "line\n",
			plant: func(t *testing.T, h hostile) { must(t, os.Symlink(h.secret, h.p("logs/bootstrap.log"))) }},
		{name: "symlink to a file of the session", want: "line\n",
			plant: func(t *testing.T, h hostile) {
				must(t, os.WriteFile(h.p("trace.jsonl"), []byte("trace\n"), 0o644))
				must(t, os.Symlink("../trace.jsonl", h.p("logs/bootstrap.log")))
				t.Cleanup(func() {
					if b, _ := os.ReadFile(h.p("trace.jsonl")); string(b) != "trace\n" {
						t.Errorf("trace.jsonl = %q, want it untouched", b)
					}
				})
			}},
		{name: "hard link to a host file", want: "line\n",
			plant: func(t *testing.T, h hostile) { must(t, os.Link(h.secret, h.p("logs/bootstrap.log"))) }},
		{name: "fifo", want: "line\n",
			plant: func(t *testing.T, h hostile) { mkfifo(t, h.p("logs/bootstrap.log")) }},
		{name: "logs symlinked to a host folder", want: "line\n",
			plant: func(t *testing.T, h hostile) {
				must(t, os.RemoveAll(h.p("logs")))
				must(t, os.Symlink(h.host, h.p("logs")))
			}},
		{name: "someone else's file", want: "line\n",
			plant: func(t *testing.T, h hostile) {
				must(t, os.WriteFile(h.p("logs/bootstrap.log"), []byte("theirs\n"), 0o666))
				if os.Getuid() != 0 {
					t.Skip("chown needs root")
				}
				must(t, os.Chown(h.p("logs/bootstrap.log"), 65534, 65534))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostile(t)
			if tt.plant != nil {
				tt.plant(t, h)
			}
			var err error
			prompt(t, func() { err = AppendFile(h.sess, "logs/bootstrap.log", []byte("line\n"), 0o644) })
			if err != nil {
				t.Fatalf("AppendFile = %v", err)
			}
			h.intact(t)
			fi, err := os.Lstat(h.p("logs/bootstrap.log"))
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("after AppendFile the log is %v, %v; want a regular file", fi, err)
			}
			if b, _ := os.ReadFile(h.p("logs/bootstrap.log")); string(b) != tt.want {
				t.Errorf("log = %q, want %q", b, tt.want)
			}
		})
	}
}

func TestCreateStreams(t *testing.T) {
	h := newHostile(t)
	must(t, os.Symlink(h.secret, h.p("logs/check.log")))
	r, err := Open(h.sess)
	must(t, err)
	defer r.Close()
	f, err := r.Create("logs/check.log", 0o644)
	must(t, err)
	_, _ = f.WriteString("a")
	_, _ = f.WriteString("b")
	must(t, f.Close())
	h.intact(t)
	if b, _ := r.ReadFile("logs/check.log", 10); !bytes.Equal(b, []byte("ab")) {
		t.Errorf("check.log = %q, want ab", b)
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"a": true, "out/result.txt": true, "a/../b": true, "a/./b/": true,
		"": false, ".": false, "..": false, "../a": false, "a/../..": false, "/a": false, "a\x00b": false,
	} {
		_, err := CheckName(name)
		if (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", name, err, ok)
		}
		if err != nil && !errcode.Is(err, errcode.SessionFile) {
			t.Errorf("CheckName(%q) code %q, want %s", name, errcode.Code(err), errcode.SessionFile)
		}
	}
}
