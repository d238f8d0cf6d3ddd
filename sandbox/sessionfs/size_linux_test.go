//go:build linux

package sessionfs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// deepChain makes depth nested folders named seg under dir by descriptor
// (the path is far past PATH_MAX) and, at the bottom, a file of size
// bytes. It returns the apparent bytes of the folders it made.
func deepChain(t testing.TB, dir, seg string, depth int, size int) {
	t.Helper()
	// os.RemoveAll (t.TempDir's clean-up) holds a descriptor per level;
	// GNU rm does not.
	t.Cleanup(func() { _ = exec.Command("rm", "-rf", dir).Run() })
	fd, err := unix.Open(dir, dirFlags, 0)
	must(t, err)
	for range depth {
		if err := unix.Mkdirat(fd, seg, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, seg, dirFlags, 0)
		must(t, err)
		_ = unix.Close(fd)
		fd = next
	}
	if size > 0 {
		f, err := unix.Openat(fd, "big", unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		must(t, err)
		buf := make([]byte, 1<<20)
		for left := size; left > 0; left -= len(buf) {
			if _, err := unix.Write(f, buf[:min(left, len(buf))]); err != nil {
				t.Fatal(err)
			}
		}
		_ = unix.Close(f)
	}
	_ = unix.Close(fd)
}

func TestSizeCounts(t *testing.T) {
	host := t.TempDir()
	must(t, os.WriteFile(filepath.Join(host, "huge"), make([]byte, 1<<20), 0o644))
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a"), make([]byte, 1000), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "b"), make([]byte, 2000), 0o644))
	must(t, os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "sub", "a2"))) // once per link
	must(t, os.Symlink(host, filepath.Join(dir, "hostdir")))                   // not followed
	must(t, os.Symlink(filepath.Join(host, "huge"), filepath.Join(dir, "hostfile")))
	must(t, unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	got, err := Size(dir, 0)
	must(t, err)
	links := uint64(len(host) + len(filepath.Join(host, "huge")))
	var dirs uint64
	for _, d := range []string{dir, filepath.Join(dir, "sub")} {
		var st unix.Stat_t
		must(t, unix.Lstat(d, &st))
		dirs += dirBytes(&st)
	}
	if want := 4000 + links + dirs; got != want {
		t.Errorf("Size = %d, want %d (4000 file bytes, %d of links, %d of folders)", got, want, links, dirs)
	}
	if got, _ := Size(dir, 100); got <= 100 || got >= 4000+links+dirs {
		t.Errorf("Size(stop 100) = %d, want it to stop past 100 and before the end", got)
	}
}

// TestSizeManyEntries: a folder whose entries take many getdents64 calls
// of readNames' buffer is counted and listed whole.
func TestSizeManyEntries(t *testing.T) {
	dir := t.TempDir()
	const n = 600 // ~70 bytes a dirent: about ten buffers
	name := strings.Repeat("n", 48)
	for i := range n {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s%04d", name, i)), []byte("abc"), 0o644))
	}
	var st unix.Stat_t
	must(t, unix.Stat(dir, &st))
	got, err := Size(dir, 0)
	must(t, err)
	if want := uint64(3*n) + dirBytes(&st); got != want {
		t.Fatalf("Size = %d, want %d (%d files of 3 bytes and the folder)", got, want, n)
	}
	names, err := func() ([]string, error) {
		fd, err := unix.Open(dir, dirFlags, 0)
		must(t, err)
		defer unix.Close(fd)
		return readNames(fd)
	}()
	must(t, err)
	if len(names) != n {
		t.Fatalf("readNames listed %d entries, want %d", len(names), n)
	}
}

// TestSizeBeyondPathMax measures a 5,000-deep chain (a path of about
// 55,000 bytes) holding 10 MB, which a walk by path cannot reach.
func TestSizeBeyondPathMax(t *testing.T) {
	dir := t.TempDir()
	deepChain(t, dir, strings.Repeat("d", 10), 5000, 10<<20)
	got, err := Size(dir, 0)
	must(t, err)
	if got < 10<<20 {
		t.Errorf("Size = %d, want at least the 10 MB file below PATH_MAX's reach", got)
	}
}

// TestSizeBoundsDescriptors walks 20,000 levels (more than a process's
// usual 1,024 descriptors, as 100,000 would be) and checks the walk never
// held more than maxOpenDirs descriptors.
func TestSizeBoundsDescriptors(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 folders")
	}
	dir := t.TempDir()
	deepChain(t, dir, "d", 20_000, 1234)
	fd, err := unix.Open(dir, dirFlags, 0)
	must(t, err)
	w := &walk{}
	defer w.closeAll()
	peak := 0
	w.onPush = func() { peak = max(peak, w.open) }
	must(t, w.push(fd))
	got, err := w.run()
	must(t, err)
	if got < 1234+20_000 {
		t.Errorf("Size = %d, want at least 1234 + a byte per folder", got)
	}
	if peak > maxOpenDirs {
		t.Errorf("peak descriptors = %d, want at most %d", peak, maxOpenDirs)
	}
	if w.open != 0 {
		t.Errorf("%d descriptors left open", w.open)
	}
}

// TestSizeNoticesAMove moves a folder out from under the walk's closed
// descriptors: the way back up through ".." no longer leads to the folder
// it came from, and the walk says so instead of counting a wrong tree.
func TestSizeNoticesAMove(t *testing.T) {
	dir := t.TempDir()
	deepChain(t, dir, "d", 100, 0)
	fd, err := unix.Open(dir, dirFlags, 0)
	must(t, err)
	w := &walk{}
	defer w.closeAll()
	moved := false
	w.onPush = func() {
		if len(w.stack) == 90 && !moved {
			moved = true
			must(t, os.Rename(filepath.Join(dir, "d", "d", "d", "d", "d", "d"), filepath.Join(dir, "moved")))
		}
	}
	must(t, w.push(fd))
	if _, err := w.run(); !errors.Is(err, ErrChanged) {
		t.Errorf("run after a move = %v, want ErrChanged", err)
	}
}

// TestWriteOverADeepFolder writes a file where a tool left a folder chain
// deeper than PATH_MAX and wider than the descriptor limit would allow
// os.RemoveAll to remove.
func TestWriteOverADeepFolder(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, "eval.jsonl"), 0o755))
	deepChain(t, filepath.Join(dir, "eval.jsonl"), strings.Repeat("e", 20), 3000, 0)
	must(t, WriteFile(dir, "eval.jsonl", []byte("x"), 0o644))
	if b, err := os.ReadFile(filepath.Join(dir, "eval.jsonl")); err != nil || string(b) != "x" {
		t.Errorf("eval.jsonl = %q, %v; want x", b, err)
	}
}

// TestChownDirs gives every folder to the tool's uid, at any depth, but
// never follows a link to a host folder and leaves files and skipped
// folders alone.
func TestChownDirs(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("chown needs root")
	}
	top := t.TempDir()
	dir, host := filepath.Join(top, "sess"), filepath.Join(top, "host")
	for _, d := range []string{dir, host, filepath.Join(dir, "tools", "x"), filepath.Join(dir, "out")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(dir, "out", "f"), nil, 0o644))
	must(t, os.Symlink(host, filepath.Join(dir, "out", "h")))
	deepChain(t, dir, strings.Repeat("c", 100), 100, 0)
	must(t, ChownDirs(dir, 65534, 65534, "tools"))
	owner := func(p string) int {
		var st unix.Stat_t
		must(t, unix.Lstat(p, &st))
		return int(st.Uid)
	}
	for p, want := range map[string]int{dir: 65534, filepath.Join(dir, "out"): 65534, filepath.Join(dir, "out", "f"): 0,
		filepath.Join(dir, "tools"): 0, filepath.Join(dir, "tools", "x"): 0, host: 0} {
		if got := owner(p); got != want {
			t.Errorf("owner of %s = %d, want %d", p, got, want)
		}
	}
	// The bottom of the chain, past PATH_MAX, reached by descriptor.
	fd, err := unix.Open(dir, dirFlags, 0)
	must(t, err)
	for range 100 {
		next, err := unix.Openat(fd, strings.Repeat("c", 100), dirFlags, 0)
		must(t, err)
		_ = unix.Close(fd)
		fd = next
	}
	var st unix.Stat_t
	must(t, unix.Fstat(fd, &st))
	_ = unix.Close(fd)
	if st.Uid != 65534 {
		t.Errorf("the deepest folder is uid %d, want 65534", st.Uid)
	}
}

func TestGiveFile(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("chown needs root")
	}
	top := t.TempDir()
	dir, secret := filepath.Join(top, "sess"), filepath.Join(top, "secret")
	must(t, os.Mkdir(dir, 0o755))
	must(t, os.WriteFile(secret, nil, 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "task.md"), nil, 0o600))
	must(t, os.Link(secret, filepath.Join(dir, "hl")))
	must(t, os.Symlink(secret, filepath.Join(dir, "sl")))
	r, err := Open(dir)
	must(t, err)
	defer r.Close()
	for _, n := range []string{"task.md", "hl", "sl", "missing"} {
		must(t, r.GiveFile(n, 65534, 65534))
	}
	if fi, _ := os.Stat(filepath.Join(dir, "task.md")); fi.Sys().(*syscall.Stat_t).Uid != 65534 {
		t.Error("task.md was not given to the tool")
	}
	if fi, _ := os.Stat(secret); fi.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Error("a file outside the session changed owner through a hard link or symlink")
	}
}

func TestReadDir(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "sess")
	must(t, os.MkdirAll(filepath.Join(dir, "tools", "a"), 0o755))
	must(t, os.Symlink(top, filepath.Join(dir, "out")))
	must(t, unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	r, err := Open(dir)
	must(t, err)
	defer r.Close()
	if des, err := r.ReadDir("tools", 0); err != nil || len(des) != 1 || des[0].Name() != "a" {
		t.Errorf("ReadDir(tools) = %v, %v", des, err)
	}
	for _, n := range []string{"out", "fifo", "../"} {
		if _, err := r.ReadDir(n, 0); err == nil {
			t.Errorf("ReadDir(%s) = nil error, want a refusal", n)
		}
	}
}
