package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// planted is a session folder prepared as a shell tool could leave it,
// next to a host folder the guest must not reach.
type planted struct {
	base, session, outside string
}

// plantSession makes base/session and base/outside. outside holds
// secret.txt; the session holds links out of it (absolute, relative, to
// "/", dangling, a loop), links that stay inside, a FIFO and a deep tree.
func plantSession(tb testing.TB) planted {
	tb.Helper()
	base := tb.TempDir()
	p := planted{base: base, session: filepath.Join(base, "session"), outside: filepath.Join(base, "outside")}
	deep := filepath.Join(p.session, "deep", strings.Repeat("d/", 100))
	for _, d := range []string{p.outside, filepath.Join(p.session, "sub"), deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	secret := filepath.Join(p.outside, "secret.txt")
	for f, data := range map[string]string{
		secret:                               "host secret",
		filepath.Join(p.session, "sub/file"): "inside content",
		filepath.Join(deep, "file"):          "deep content",
	} {
		if err := os.WriteFile(f, []byte(data), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	old := time.Unix(1_000_000, 0)
	if err := os.Chtimes(secret, old, old); err != nil {
		tb.Fatal(err)
	}
	for link, target := range map[string]string{
		"hostroot":   "/",
		"abs":        secret,
		"abspasswd":  "/etc/passwd",
		"rel":        "../outside/secret.txt",
		"relpasswd":  strings.Repeat("../", 12) + "etc/passwd",
		"sub/esc":    "../../outside",
		"out":        p.outside,
		"outrel":     "../outside",
		"dangle":     filepath.Join(p.outside, "dangled.txt"),
		"danglerel":  "../outside/dangled2.txt",
		"loop1":      "loop2",
		"loop2":      "loop1",
		"inside":     "sub/file",
		"insidedir":  "sub",
		"sub/up":     "../inside",
		"chain1":     "chain2",
		"chain2":     "chain3",
		"chain3":     "sub/../inside",
		"deep/upout": "../../outside",
	} {
		if err := os.Symlink(target, filepath.Join(p.session, link)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(p.session, "fifo"), 0o666); err != nil {
		tb.Fatal(err)
	}
	return p
}

// fingerprint fingerprints everything under dir (without following links)
// plus /etc/passwd and /etc/shadow.
func fingerprint(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	state := map[string]string{}
	add := func(p string, fi fs.FileInfo) {
		s := fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			s += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		state[p] = s
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		add(p, fi)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range []string{"/etc/passwd", "/etc/shadow"} {
		if fi, err := os.Lstat(p); err == nil {
			add(p, fi)
		}
	}
	return state
}

// escapeWant is what the escape guest must report. Every attempt to leave
// the folder fails; "err:" alone means any errno will do (the guest's Go
// runtime picks the call, e.g. MkdirAll stats first).
func escapeWant(p planted) map[string]string {
	want := map[string]string{}
	for _, k := range []string{
		"read_host_secret", "read_host_shadow", "read_host_passwd", "read_abs", "read_abs_passwd",
		"read_rel", "read_rel_passwd", "read_sub_escape", "read_out", "read_outrel",
		"stat_abs", "stat_host_etc", "list_hostroot", "list_host", "list_out", "list_outrel",
		"list_sub_escape", "write_abs", "write_rel", "write_out_new", "write_outrel_new",
		"write_host_new", "write_dangle", "write_dangle_rel", "append_abs", "truncate_abs",
		"chtimes_abs", "chtimes_out", "mkdir_out", "mkdir_host", "rename_into_out",
		"rename_from_out", "rename_from_host", "link_from_out", "link_into_out", "remove_out",
		"remove_host", "symlink_create",
	} {
		want[k] = "err:EPERM"
	}
	for k, v := range map[string]string{
		"read_loop":      "err:ELOOP",
		"mkdirall_out":   "err:",
		"fifo_read":      "err:EACCES",
		"fifo_write":     "err:",
		"own_create":     "ok",
		"read_inside":    "ok:inside content",
		"read_insidedir": "ok:inside content",
		"read_sub_up":    "ok:inside content",
		"read_chain":     "ok:inside content",
		"lstat_abs":      "ok",
		"readlink_abs":   "ok:" + filepath.Join(p.outside, "secret.txt"),
		"list_insidedir": "ok:esc,file,up",
		"write_inside":   "ok:rewritten through inside",
		"read_deep":      "ok:deep content",
		"write_deep":     "ok:deep",
		"own_ops":        "ok",
	} {
		want[k] = v
	}
	return want
}

// runEscape runs the escape guest in p's session and checks every
// attempt and that nothing outside the session changed.
func runEscape(e *Engine, m *Module, p planted) error {
	before := fingerprint(nilTB{}, p.outside)
	ctx := context.Background()
	out, err := e.Run(ctx, m, Call{Dir: p.session, Args: []string{"escape", p.outside}, Deadline: 2 * time.Minute})
	if err != nil {
		return fmt.Errorf("Run: %w", err)
	}
	if out.ExitCode != 0 {
		return fmt.Errorf("guest exited %d: %s", out.ExitCode, out.Stderr)
	}
	var got map[string]string
	if err := json.Unmarshal(out.Stdout, &got); err != nil {
		return fmt.Errorf("guest output %q: %v", out.Stdout, err)
	}
	var bad []string
	want := escapeWant(p)
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			bad = append(bad, k+": missing")
		case w == "err:" && !strings.HasPrefix(g, "err:"):
			bad = append(bad, fmt.Sprintf("%s = %q, want an error", k, g))
		case w != "err:" && g != w:
			bad = append(bad, fmt.Sprintf("%s = %q, want %q", k, g, w))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			bad = append(bad, k+": not expected by the test")
		}
	}
	if diff := cmp.Diff(before, fingerprint(nilTB{}, p.outside)); diff != "" {
		bad = append(bad, "outside folder changed (-before +after):\n"+diff)
	}
	if ents, _ := os.ReadDir(p.base); len(ents) != 2 {
		bad = append(bad, fmt.Sprintf("%s has %d entries, want session and outside", p.base, len(ents)))
	}
	if b, _ := os.ReadFile(filepath.Join(p.session, "sub", "file")); string(b) != "rewritten through inside" {
		bad = append(bad, fmt.Sprintf("sub/file = %q after the write through 'inside'", b))
	}
	for _, f := range []string{"newlink", "stolen.txt", "stolen2.txt", "hardlink.txt", "work"} {
		if _, err := os.Lstat(filepath.Join(p.session, f)); err == nil {
			bad = append(bad, f+" exists in the session")
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	return nil
}

// nilTB lets fingerprint run off the test goroutine: it panics on failure.
type nilTB struct{ testing.TB }

func (nilTB) Helper()           {}
func (nilTB) Fatal(args ...any) { panic(fmt.Sprint(args...)) }

// TestGuestCannotLeave: a WASM guest, running in this (often root)
// process, meets the links a shell tool planted in its session and
// cannot read, create, rename, link, list or touch anything outside
// through them, while links and files inside keep working.
func TestGuestCannotLeave(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "escape")
	if err := runEscape(e, m, plantSession(t)); err != nil {
		t.Error(err)
	}
}

// TestGuestCannotLeaveHammer runs the escape guest from many goroutines at
// once, each in its own planted session; run it with -race.
func TestGuestCannotLeaveHammer(t *testing.T) {
	t.Parallel()
	const goroutines, calls = 8, 2
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "escape")
	sessions := make([]planted, goroutines)
	for i := range sessions {
		sessions[i] = plantSession(t)
	}
	errs := make(chan error, goroutines*calls)
	for g := range goroutines {
		go func() {
			for c := range calls {
				if c > 0 { // the first call rewrote sub/file and made deep/.../new.txt
					os.WriteFile(filepath.Join(sessions[g].session, "sub", "file"), []byte("inside content"), 0o600)
				}
				errs <- runEscape(e, m, sessions[g])
			}
		}()
	}
	for range goroutines * calls {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestRunScopeLinkedOut: a scope folder that a tool replaced by a link out
// of the session is refused before the guest starts; one that links inside
// the session is followed.
func TestRunScopeLinkedOut(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "files")
	p := plantSession(t)
	before := fingerprint(t, p.outside)
	for _, scope := range []string{"out", "outrel", "hostroot", "sub/esc", "dangle"} {
		_, err := e.Run(context.Background(), m, Call{Session: p.session, Dir: ScopeDir(p.session, scope)})
		if err == nil {
			t.Errorf("scope %q: Run succeeded, want a refusal", scope)
			continue
		}
		if code := errcode.Code(err); code != errcode.IO {
			t.Errorf("scope %q: code %q, want %s: %v", scope, code, errcode.IO, err)
		}
	}
	if _, err := e.Run(context.Background(), m, Call{Session: p.session, Dir: filepath.Join(p.base, "elsewhere")}); err == nil {
		t.Error("Dir outside Session: Run succeeded, want a refusal")
	}
	if diff := cmp.Diff(before, fingerprint(t, p.outside)); diff != "" {
		t.Errorf("outside folder changed (-before +after):\n%s", diff)
	}
	for scope, landed := range map[string]string{"insidedir": "sub/out.txt", "new/scope": "new/scope/out.txt", ".": "out.txt"} {
		if _, err := e.Run(context.Background(), m, Call{Session: p.session, Dir: ScopeDir(p.session, scope)}); err != nil {
			t.Errorf("scope %q: %v", scope, err)
		}
		if _, err := os.Stat(filepath.Join(p.session, landed)); err != nil {
			t.Errorf("scope %q: guest write did not land in %s: %v", scope, landed, err)
		}
	}
}

// TestGuestFSErrnos checks the file system's answers directly, errno by
// errno, without a guest in between.
func TestGuestFSErrnos(t *testing.T) {
	t.Parallel()
	p := plantSession(t)
	before := fingerprint(t, p.outside)
	g := openTestFS(t, p.session)
	open := func(path string, flag experimentalsys.Oflag) experimentalsys.Errno {
		f, errno := g.OpenFile(path, flag, 0o644)
		if f != nil {
			f.Close()
		}
		return errno
	}
	const (
		rd    = experimentalsys.O_RDONLY
		wr    = experimentalsys.O_WRONLY
		creat = experimentalsys.O_WRONLY | experimentalsys.O_CREAT | experimentalsys.O_TRUNC
	)
	tests := []struct {
		name string
		do   func() experimentalsys.Errno
		want experimentalsys.Errno
	}{
		{"open hostroot/etc/passwd", func() experimentalsys.Errno { return open("hostroot/etc/passwd", rd) }, experimentalsys.EPERM},
		{"open abs", func() experimentalsys.Errno { return open("abs", rd) }, experimentalsys.EPERM},
		{"open abs for truncation", func() experimentalsys.Errno { return open("abs", creat) }, experimentalsys.EPERM},
		{"open rel", func() experimentalsys.Errno { return open("rel", rd) }, experimentalsys.EPERM},
		{"open ../outside", func() experimentalsys.Errno { return open("../outside/secret.txt", rd) }, experimentalsys.EPERM},
		{"/etc/passwd is the session's", func() experimentalsys.Errno { return open("/etc/passwd", rd) }, experimentalsys.ENOENT},
		{"//hostroot/etc/passwd", func() experimentalsys.Errno { return open("//hostroot/etc/passwd", rd) }, experimentalsys.EPERM},
		{"create through dangle", func() experimentalsys.Errno { return open("dangle", creat) }, experimentalsys.EPERM},
		{"create through out", func() experimentalsys.Errno { return open("out/new.txt", creat) }, experimentalsys.EPERM},
		{"create excl on dangle", func() experimentalsys.Errno { return open("dangle", creat|experimentalsys.O_EXCL) }, experimentalsys.EEXIST},
		{"open loop", func() experimentalsys.Errno { return open("loop1", rd) }, experimentalsys.ELOOP},
		{"open fifo", func() experimentalsys.Errno { return open("fifo", rd) }, experimentalsys.EACCES},
		{"open fifo rdwr", func() experimentalsys.Errno { return open("fifo", experimentalsys.O_RDWR) }, experimentalsys.EACCES},
		{"open deep/upout", func() experimentalsys.Errno { return open("deep/upout/secret.txt", rd) }, experimentalsys.EPERM},
		{"nofollow on inside", func() experimentalsys.Errno { return open("inside", rd|experimentalsys.O_NOFOLLOW) }, experimentalsys.ELOOP},
		{"directory flag on file", func() experimentalsys.Errno { return open("sub/file", rd|experimentalsys.O_DIRECTORY) }, experimentalsys.ENOTDIR},
		{"write a directory", func() experimentalsys.Errno { return open("sub", wr) }, experimentalsys.EISDIR},
		{"open inside", func() experimentalsys.Errno { return open("inside", rd) }, 0},
		{"open chain", func() experimentalsys.Errno { return open("chain1", rd) }, 0},
		{"open root", func() experimentalsys.Errno { return open(".", rd) }, 0},
		{"stat abs", func() experimentalsys.Errno { _, e := g.Stat("abs"); return e }, experimentalsys.EPERM},
		{"stat hostroot", func() experimentalsys.Errno { _, e := g.Stat("hostroot"); return e }, experimentalsys.EPERM},
		{"lstat abs", func() experimentalsys.Errno { _, e := g.Lstat("abs"); return e }, 0},
		{"lstat hostroot/etc", func() experimentalsys.Errno { _, e := g.Lstat("hostroot/etc"); return e }, experimentalsys.EPERM},
		{"mkdir out/x", func() experimentalsys.Errno { return g.Mkdir("out/x", 0o755) }, experimentalsys.EPERM},
		{"mkdir hostroot/tmp/x", func() experimentalsys.Errno { return g.Mkdir("hostroot/tmp/x", 0o755) }, experimentalsys.EPERM},
		{"rename out/secret.txt in", func() experimentalsys.Errno { return g.Rename("out/secret.txt", "stolen") }, experimentalsys.EPERM},
		{"rename sub/file out", func() experimentalsys.Errno { return g.Rename("sub/file", "outrel/moved") }, experimentalsys.EPERM},
		{"link out/secret.txt in", func() experimentalsys.Errno { return g.Link("out/secret.txt", "hl") }, experimentalsys.EPERM},
		{"link sub/file out", func() experimentalsys.Errno { return g.Link("sub/file", "out/hl") }, experimentalsys.EPERM},
		{"unlink out/secret.txt", func() experimentalsys.Errno { return g.Unlink("out/secret.txt") }, experimentalsys.EPERM},
		{"unlink a directory", func() experimentalsys.Errno { return g.Unlink("sub") }, experimentalsys.EISDIR},
		{"rmdir out", func() experimentalsys.Errno { return g.Rmdir("hostroot/tmp") }, experimentalsys.EPERM},
		{"rmdir a file", func() experimentalsys.Errno { return g.Rmdir("sub/file") }, experimentalsys.ENOTDIR},
		{"chmod abs", func() experimentalsys.Errno { return g.Chmod("abs", 0o777) }, experimentalsys.EPERM},
		{"utimens abs", func() experimentalsys.Errno { return g.Utimens("abs", 0, 0) }, experimentalsys.EPERM},
		{"utimens out/secret.txt", func() experimentalsys.Errno { return g.Utimens("out/secret.txt", 0, 0) }, experimentalsys.EPERM},
		{"symlink inside", func() experimentalsys.Errno { return g.Symlink("sub/file", "l") }, experimentalsys.EPERM},
		{"create past PATH_MAX", func() experimentalsys.Errno { return open(strings.Repeat("d/", 2048)+"f", creat) }, experimentalsys.ENAMETOOLONG},
		{"mkdir past PATH_MAX", func() experimentalsys.Errno { return g.Mkdir(strings.Repeat("d/", 2048)+"x", 0o755) }, experimentalsys.ENAMETOOLONG},
		{"readlink abs", func() experimentalsys.Errno { _, e := g.Readlink("abs"); return e }, 0},
		{"readlink through hostroot", func() experimentalsys.Errno { _, e := g.Readlink("hostroot/proc/self/exe"); return e }, experimentalsys.EPERM},
	}
	for _, tt := range tests {
		start := time.Now()
		if got := tt.do(); got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, got, tt.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", tt.name, d)
		}
	}
	if diff := cmp.Diff(before, fingerprint(t, p.outside)); diff != "" {
		t.Errorf("outside folder changed (-before +after):\n%s", diff)
	}
}

// TestGuestFSFileOps covers the descriptor side: read, pread, write,
// pwrite, seek, append on and off, truncate, times, readdir with inode and
// type, rewinding a directory to see a new entry, and EBADF after close.
func TestGuestFSFileOps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g := openTestFS(t, dir)
	f, errno := g.OpenFile("f.txt", experimentalsys.O_RDWR|experimentalsys.O_CREAT, 0o600)
	if errno != 0 {
		t.Fatalf("OpenFile = %v", errno)
	}
	step := func(what string, errno experimentalsys.Errno) {
		t.Helper()
		if errno != 0 {
			t.Fatalf("%s = %v", what, errno)
		}
	}
	_, errno = f.Write([]byte("0123456789"))
	step("Write", errno)
	_, errno = f.Pwrite([]byte("AB"), 2)
	step("Pwrite", errno)
	off, errno := f.Seek(-3, 2)
	step("Seek", errno)
	buf := make([]byte, 8)
	n, errno := f.Read(buf)
	step("Read", errno)
	if off != 7 || string(buf[:n]) != "789" {
		t.Errorf("Seek/Read = %d, %q; want 7, 789", off, buf[:n])
	}
	n, errno = f.Pread(buf[:4], 1)
	step("Pread", errno)
	if string(buf[:n]) != "1AB4" {
		t.Errorf("Pread = %q, want 1AB4", buf[:n])
	}
	step("SetAppend", f.SetAppend(true))
	_, errno = f.Write([]byte("+"))
	step("append Write", errno)
	if !f.IsAppend() {
		t.Error("IsAppend = false after SetAppend(true)")
	}
	step("SetAppend off", f.SetAppend(false))
	_, errno = f.Pwrite([]byte("Z"), 0)
	step("Pwrite after append", errno)
	step("Truncate", f.Truncate(10))
	step("Utimens", f.Utimens(5e9, experimentalsys.UTIME_OMIT))
	step("Sync", f.Sync())
	step("Datasync", f.Datasync())
	st, errno := f.Stat()
	step("Stat", errno)
	if st.Size != 10 || st.Atim != 5e9 {
		t.Errorf("Stat = size %d atim %d, want 10 and 5e9", st.Size, st.Atim)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != "Z1AB456789" {
		t.Errorf("content = %q, want Z1AB456789", b)
	}
	if errno := f.Truncate(-1); errno != experimentalsys.EINVAL {
		t.Errorf("Truncate(-1) = %v, want EINVAL", errno)
	}
	step("Close", f.Close())
	step("Close again", f.Close())
	if _, errno := f.Read(buf); errno != experimentalsys.EBADF {
		t.Errorf("Read after Close = %v, want EBADF", errno)
	}

	step("Mkdir", g.Mkdir("d", 0o755))
	d, errno := g.OpenFile("d", experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0)
	step("open dir", errno)
	defer d.Close()
	if isDir, _ := d.IsDir(); !isDir {
		t.Error("IsDir = false for a directory")
	}
	if _, errno := d.Read(buf); errno != experimentalsys.EISDIR {
		t.Errorf("Read(dir) = %v, want EISDIR", errno)
	}
	ents, errno := d.Readdir(10)
	step("Readdir", errno)
	if len(ents) != 0 {
		t.Errorf("Readdir(empty) = %v", ents)
	}
	step("create in dir", func() experimentalsys.Errno {
		f, errno := g.OpenFile("d/x", experimentalsys.O_WRONLY|experimentalsys.O_CREAT, 0o600)
		if f != nil {
			f.Close()
		}
		return errno
	}())
	step("Mkdir d/y", g.Mkdir("d/y", 0o755))
	_, errno = d.Seek(0, 0)
	step("rewind", errno)
	ents, errno = d.Readdir(10)
	step("Readdir after rewind", errno)
	got := map[string]fs.FileMode{}
	for _, e := range ents {
		if e.Ino == 0 {
			t.Errorf("Readdir: %s has no inode", e.Name)
		}
		got[e.Name] = e.Type
	}
	if diff := cmp.Diff(map[string]fs.FileMode{"x": 0, "y": fs.ModeDir}, got); diff != "" {
		t.Errorf("Readdir after rewind (-want +got):\n%s", diff)
	}
	if errno := g.Rename("d/x", "d/y"); errno != experimentalsys.EISDIR {
		t.Errorf("Rename(file onto dir) = %v, want EISDIR", errno)
	}
}

// TestGuestFSSharedThroughLink: the shared-file refusals hold when the
// guest reaches the shared file through a link, and futimens on a shared
// file opened for reading is refused too.
func TestGuestFSSharedThroughLink(t *testing.T) {
	t.Parallel()
	outside, dir := t.TempDir(), t.TempDir()
	shared := filepath.Join(outside, "calc.wasm")
	if err := os.WriteFile(shared, []byte("module"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(shared, filepath.Join(dir, "calc.wasm")); err != nil {
		t.Skipf("hard links unavailable: %v", err)
	}
	if err := os.Symlink("calc.wasm", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	before := fingerprint(t, outside)
	g := openTestFS(t, dir)
	if _, errno := g.OpenFile("alias", experimentalsys.O_WRONLY|experimentalsys.O_TRUNC, 0); errno != experimentalsys.EACCES {
		t.Errorf("OpenFile(alias, write) = %v, want EACCES", errno)
	}
	if errno := g.Chmod("alias", 0o777); errno != experimentalsys.EPERM {
		t.Errorf("Chmod(alias) = %v, want EPERM", errno)
	}
	if errno := g.Utimens("alias", 0, 0); errno != experimentalsys.EPERM {
		t.Errorf("Utimens(alias) = %v, want EPERM", errno)
	}
	f, errno := g.OpenFile("alias", experimentalsys.O_RDONLY, 0)
	if errno != 0 {
		t.Fatalf("OpenFile(alias, read) = %v", errno)
	}
	defer f.Close()
	if errno := f.Utimens(0, 0); errno != experimentalsys.EPERM {
		t.Errorf("File.Utimens(shared) = %v, want EPERM", errno)
	}
	if errno := f.Truncate(0); errno == 0 {
		t.Error("File.Truncate on a read-only shared file succeeded")
	}
	if _, errno := f.Write([]byte("x")); errno == 0 {
		t.Error("File.Write on a read-only shared file succeeded")
	}
	if diff := cmp.Diff(before, fingerprint(t, outside)); diff != "" {
		t.Errorf("shared file changed (-before +after):\n%s", diff)
	}
}
