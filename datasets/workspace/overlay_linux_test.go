//go:build linux

package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestMain runs the package's tests, as root, in a mount namespace of
// their own (EnterPrivateMountNS), as murmur-eval runs: the overlays they
// mount never reach the host's mount table.
func TestMain(m *testing.M) {
	_ = EnterPrivateMountNS(os.Args, os.Environ())
	os.Exit(m.Run())
}

// overlaySet is a Set able to mount overlays, or skips the test.
func overlaySet(t testing.TB, runDir string) *Set {
	t.Helper()
	s := NewSet(runDir, DefaultLimits()).WithOverlay(os.Getenv(MountNSEnv))
	if err := s.OverlayErr(); err != nil {
		t.Skipf("no overlays here: %v", err)
	}
	return s
}

// overlayCase sets up a Set over src and returns it with its base.
func overlayCase(t *testing.T, src string) (*Set, *Base, string) {
	t.Helper()
	run := filepath.Join(t.TempDir(), "run")
	must(t, os.MkdirAll(run, 0o755))
	s := overlaySet(t, run)
	t.Cleanup(func() { _ = s.Close() }) // a failed test's mounts too, before TempDir's removal
	b, err := s.Base(t.Context(), src, "dir")
	must(t, err)
	return s, b, run
}

func newSession(t testing.TB, run, name string) string {
	t.Helper()
	d := filepath.Join(run, "sessions", name)
	must(t, os.MkdirAll(d, 0o755))
	return d
}

// mountsUnder lists the mount points under dir in this process's table.
func mountsUnder(t testing.TB, dir string) []string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	must(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && strings.HasPrefix(unescapeMountPath(fields[4]), dir+"/") {
			out = append(out, fields[4])
		}
	}
	return out
}

func TestOverlayIsolation(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writeFiles(t, src, map[string]string{"a.txt": "alpha\n", "d/b.txt": "beta\n", "d/e/c.txt": "gamma\n", "d/app.txt": "app\n", "gone.txt": "x\n"})
	srcHash := treeHash(t, src)
	s, b, run := overlayCase(t, src)
	one, two := newSession(t, run, "one"), newSession(t, run, "two")
	var clones []CloneResult
	for _, d := range []string{one, two} {
		res, err := s.Clone(t.Context(), b, d, CloneOptions{UID: -1, GID: -1})
		must(t, err)
		if res.Mechanism != Overlay {
			t.Fatalf("auto chose %s, want overlay", res.Mechanism)
		}
		clones = append(clones, res)
	}
	baseHash := treeHash(t, b.Dir)
	p := func(n string) string { return filepath.Join(one, filepath.FromSlash(n)) }
	must(t, os.Remove(p("a.txt")))
	must(t, os.WriteFile(p("a.txt"), []byte("rewritten\n"), 0o644))
	f, err := os.OpenFile(p("d/b.txt"), os.O_WRONLY|os.O_TRUNC, 0)
	must(t, err)
	_, err = f.WriteString("in place\n")
	must(t, err)
	must(t, f.Close())
	must(t, os.RemoveAll(p("d/e")))
	must(t, os.Chmod(p("d"), 0o700))
	for n, want := range map[string]string{"a.txt": "alpha\n", "d/b.txt": "beta\n", "d/e/c.txt": "gamma\n"} {
		if got := mustRead(t, filepath.Join(two, n)); got != want {
			t.Errorf("case two sees %s %q", n, got)
		}
	}
	if treeHash(t, src) != srcHash {
		t.Error("the source changed")
	}
	if treeHash(t, b.Dir) != baseHash {
		t.Error("the base changed")
	}
	fi, err := os.Stat(filepath.Join(two, "a.txt"))
	must(t, err)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode())
	}
	for i, d := range []string{one, two} {
		must(t, s.Release(d, clones[i]))
	}
	must(t, s.Close())
	if m := mountsUnder(t, run); len(m) > 0 {
		t.Errorf("mounts left: %v", m)
	}
	if _, err := os.Stat(s.LayersDir()); !os.IsNotExist(err) {
		t.Errorf("layers folder left: %v", err)
	}
}

// TestOverlayMatchesCopy: the same changes made in a copied session and an
// overlaid one give the same out/workspace.diff, and once released and
// materialised the same final tree (no whiteout, no overlay mark left).
func TestOverlayMatchesCopy(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writeFiles(t, src, map[string]string{
		"a.txt": "alpha\n", "d/b.txt": "beta\n", "d/e/c.txt": "gamma\n", "d/app.txt": "app\n",
		"gone.txt": "x\n", "f/x.txt": "x\n", "f/y.txt": "y\n", "g/z.txt": "z\n", "h": "file\n", "keep/k.txt": "k\n",
	})
	must(t, os.Symlink("a.txt", filepath.Join(src, "l")))
	s, b, run := overlayCase(t, src)
	cp, ov := newSession(t, run, "copy"), newSession(t, run, "overlay")
	cres, err := s.Clone(t.Context(), b, cp, CloneOptions{Mechanism: Copy, UID: -1, GID: -1})
	must(t, err)
	ores, err := s.Clone(t.Context(), b, ov, CloneOptions{Mechanism: Overlay, UID: -1, GID: -1})
	must(t, err)
	for _, d := range []string{cp, ov} {
		p := func(n string) string { return filepath.Join(d, filepath.FromSlash(n)) }
		must(t, os.Remove(p("a.txt")))
		must(t, os.WriteFile(p("a.txt"), []byte("rewritten\n"), 0o644))
		must(t, os.WriteFile(p("d/b.txt"), []byte("in place\n"), 0o644))
		f, err := os.OpenFile(p("d/app.txt"), os.O_WRONLY|os.O_APPEND, 0)
		must(t, err)
		_, err = f.WriteString("more\n")
		must(t, err)
		must(t, f.Close())
		must(t, os.RemoveAll(p("d/e")))
		must(t, os.Remove(p("gone.txt")))
		must(t, os.RemoveAll(p("f"))) // a folder deleted and made again: opaque
		must(t, os.Mkdir(p("f"), 0o755))
		must(t, os.WriteFile(p("f/x.txt"), []byte("x\n"), 0o644))
		must(t, os.RemoveAll(p("g"))) // a folder made a file
		must(t, os.WriteFile(p("g"), []byte("now a file\n"), 0o644))
		must(t, os.Remove(p("h"))) // a file made a folder
		must(t, os.MkdirAll(p("h/i"), 0o755))
		must(t, os.WriteFile(p("h/i/j.txt"), []byte("j\n"), 0o644))
		must(t, os.Remove(p("l")))
		must(t, os.Symlink("d/b.txt", p("l")))
		must(t, os.MkdirAll(p("new/deep"), 0o755))
		must(t, os.WriteFile(p("new/deep/n.txt"), []byte("new\n"), 0o644))
		must(t, os.Chtimes(p("keep/k.txt"), fi0(t, p("keep/k.txt")), fi0(t, p("keep/k.txt")))) // copied up, unchanged
		must(t, os.MkdirAll(p("out"), 0o755))
	}
	dc, err := b.Diff(t.Context(), cp, cres, 0)
	must(t, err)
	do, err := b.Diff(t.Context(), ov, ores, 0)
	must(t, err)
	wantDiff, gotDiff := mustRead(t, filepath.Join(cp, DiffFile)), mustRead(t, filepath.Join(ov, DiffFile))
	if wantDiff != gotDiff || dc != do {
		t.Errorf("overlay diff %+v:\n%s\ncopy diff %+v:\n%s", do, gotDiff, dc, wantDiff)
	}
	if !strings.Contains(gotDiff, "gone.txt") || !strings.Contains(gotDiff, "d/e/c.txt") {
		t.Errorf("deletions missing from the diff:\n%s", gotDiff)
	}
	must(t, s.Release(ov, ores))
	must(t, s.Close())
	if a, c := treeHash(t, ov), treeHash(t, cp); a != c {
		t.Errorf("materialised session differs from the copy's:\n%s\n%s", listTree(t, ov), listTree(t, cp))
	}
	noMarks(t, ov)
}

func fi0(t *testing.T, p string) (at time.Time) {
	t.Helper()
	fi, err := os.Stat(p)
	must(t, err)
	return fi.ModTime()
}

// noMarks fails if a materialised session keeps an overlay mark: a
// whiteout, or an opaque or redirect attribute.
func noMarks(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if fi.Mode()&os.ModeCharDevice != 0 {
			t.Errorf("whiteout left: %s", p)
		}
		if fi.IsDir() {
			for _, a := range []string{opaqueAttr, redirectAttr} {
				if n, err := unix.Lgetxattr(p, a, make([]byte, 256)); err == nil && n > 0 {
					t.Errorf("%s left on %s", a, p)
				}
			}
		}
		return nil
	})
}

func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			fmt.Fprintf(&b, "%s %v\n", rel, fi.Mode())
		}
		return nil
	})
	return b.String()
}

// TestOverlayForced: without the private mount namespace, a forced overlay
// is E-IO-003 and auto falls back to a copy.
func TestOverlayForced(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writeFiles(t, src, map[string]string{"a.txt": "alpha\n"})
	run := filepath.Join(t.TempDir(), "run")
	s := NewSet(run, DefaultLimits()) // no token: never mounts
	b, err := s.Base(t.Context(), src, "dir")
	must(t, err)
	_, err = s.Clone(t.Context(), b, newSession(t, run, "a"), CloneOptions{Mechanism: Overlay, UID: -1, GID: -1})
	if got := errcode.Code(err); got != errcode.IO {
		t.Fatalf("forced overlay: code %q (%v), want %q", got, err, errcode.IO)
	}
	res, err := s.Clone(t.Context(), b, newSession(t, run, "b"), CloneOptions{UID: -1, GID: -1})
	if err != nil || res.Mechanism == Overlay {
		t.Fatalf("auto: %s, %v; want no overlay", res.Mechanism, err)
	}
	s2 := NewSet(filepath.Join(t.TempDir(), "run"), DefaultLimits()).WithOverlay("mnt:[1]")
	if s2.OverlayErr() == nil {
		t.Fatal("a token of another namespace was accepted")
	}
}

// TestOverlayHostileSession: links a case plants where the base has
// folders never lead Materialise (or Diff) out of the session.
func TestOverlayHostileSession(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writeFiles(t, src, map[string]string{"d/b.txt": "beta\n", "e/c.txt": "gamma\n"})
	s, b, run := overlayCase(t, src)
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret": "s\n"})
	outHash := treeHash(t, outside)
	d := newSession(t, run, "h")
	res, err := s.Clone(t.Context(), b, d, CloneOptions{UID: -1, GID: -1})
	must(t, err)
	must(t, os.RemoveAll(filepath.Join(d, "d")))
	must(t, os.Symlink(outside, filepath.Join(d, "d")))
	must(t, os.RemoveAll(filepath.Join(d, "e")))
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(d, "e")))
	must(t, os.Symlink(s.LayersDir(), filepath.Join(d, "layers")))
	_, err = b.Diff(t.Context(), d, res, 0)
	must(t, err)
	diff := mustRead(t, filepath.Join(d, DiffFile))
	if strings.Contains(diff, "s\n+") || strings.Contains(diff, "secret") && !strings.Contains(diff, "link to") {
		t.Errorf("diff read through a link:\n%s", diff)
	}
	must(t, s.Release(d, res))
	must(t, s.Close())
	if treeHash(t, outside) != outHash {
		t.Error("materialising wrote through a planted link")
	}
	if fi, err := os.Lstat(filepath.Join(d, "d")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the case's link was replaced: %v %v", fi, err)
	}
}

// BenchmarkOverlay is a case's life on an overlay over a 5,000-file,
// 50 MB workspace (as BenchmarkClone's), step by step: setup (the mount),
// diff (three files changed, one deleted: the upper layer read), release
// (unmount, upper moved into the session) and materialise (a kept
// session's unchanged files linked back at the end of the run).
// MURMUR_EVAL_BENCH_DIR puts the trees on another file system.
func BenchmarkOverlay(b *testing.B) {
	root := os.Getenv("MURMUR_EVAL_BENCH_DIR")
	if root == "" {
		root = b.TempDir()
	} else {
		var err error
		if root, err = os.MkdirTemp(root, "bench-"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(root) })
	}
	src := filepath.Join(root, "src")
	writeFiles(b, src, benchFiles(b, 5000, 50<<20))
	run := filepath.Join(root, "run")
	must(b, os.MkdirAll(run, 0o755))
	s := overlaySet(b, run)
	base, err := s.Base(b.Context(), src, "dir")
	must(b, err)
	n := 0
	// one mounts a fresh session and changes it as a case would.
	one := func() (string, CloneResult) {
		n++
		d := newSession(b, run, fmt.Sprint(n))
		res, err := s.Clone(b.Context(), base, d, CloneOptions{UID: 65534, GID: 65534})
		must(b, err)
		return d, res
	}
	change := func(d string) {
		for _, f := range []string{"pkg00/sub0/file0000.go", "pkg01/sub1/file0001.go", "pkg02/sub2/file0002.go"} {
			must(b, os.WriteFile(filepath.Join(d, f), []byte("changed\n"), 0o644))
		}
		must(b, os.Remove(filepath.Join(d, "pkg03/sub3/file0003.go")))
		must(b, os.MkdirAll(filepath.Join(d, "out"), 0o755))
	}
	d, res := one() // the first clone makes the base a lower layer, once per run
	must(b, s.Release(d, res))
	b.Run("setup", func(b *testing.B) {
		for b.Loop() {
			d, res := one()
			b.StopTimer()
			must(b, s.Release(d, res))
			must(b, os.RemoveAll(d))
			b.StartTimer()
		}
	})
	b.Run("diff", func(b *testing.B) {
		d, res := one()
		change(d)
		for b.Loop() {
			if _, err := base.Diff(b.Context(), d, res, 0); err != nil {
				b.Fatal(err)
			}
		}
		must(b, s.Release(d, res))
	})
	b.Run("release", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			d, res := one()
			change(d)
			b.StartTimer()
			must(b, s.Release(d, res))
		}
	})
	b.Run("materialise", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			d, res := one()
			change(d)
			must(b, s.Release(d, res))
			b.StartTimer()
			must(b, base.Materialise(b.Context(), d))
		}
	})
	must(b, s.Close())
}

// TestOverlayMatchesCopyRandom applies the same random changes (writes,
// appends, deletions of files and trees, new folders, renames of files and
// folders, kind changes, links, modes) to a copied session and an
// overlaid one: every change succeeds or fails alike, the diffs are
// byte-identical, and the overlaid session, released and materialised, is
// the same tree as the copy.
func TestOverlayMatchesCopyRandom(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writeFiles(t, src, map[string]string{
		"top.txt": "top\n", "a/1.txt": "one\n", "a/b/2.txt": "two\n", "a/b/c/3.txt": "three\n",
		"d/4.txt": "four\n", "d/5.bin": "bin\x00ary", "e/6.txt": "six\n",
	})
	must(t, os.Symlink("a/1.txt", filepath.Join(src, "l")))
	s, b, run := overlayCase(t, src)
	paths := []string{"top.txt", "a", "a/1.txt", "a/b", "a/b/2.txt", "a/b/c", "a/b/c/3.txt", "d", "d/4.txt", "d/5.bin", "e", "e/6.txt", "l", "new", "new/x.txt", "a/b/y.txt", "d/z", "out", "out/sub"}
	const seeds = 120
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		type op struct{ kind, p, q int }
		var ops []op
		for range 1 + rng.IntN(10) {
			ops = append(ops, op{rng.IntN(12), rng.IntN(len(paths)), rng.IntN(len(paths))})
		}
		cp, ov := newSession(t, run, fmt.Sprintf("c%d", seed)), newSession(t, run, fmt.Sprintf("o%d", seed))
		cres, err := s.Clone(t.Context(), b, cp, CloneOptions{Mechanism: Copy, UID: -1, GID: -1})
		must(t, err)
		ores, err := s.Clone(t.Context(), b, ov, CloneOptions{Mechanism: Overlay, UID: -1, GID: -1})
		must(t, err)
		var results [2][]string
		for i, d := range []string{cp, ov} {
			for _, o := range ops {
				p, q := filepath.Join(d, paths[o.p]), filepath.Join(d, paths[o.q])
				if o.kind >= 9 { // mostly folders of the base, to names free or not
					dirs, to := []string{"a", "a/b", "a/b/c", "d", "e", "renamed"}, []string{"renamed", "a/moved", "d/sub", "new", "e"}
					p, q = filepath.Join(d, dirs[o.p%len(dirs)]), filepath.Join(d, to[o.q%len(to)])
					err := os.Rename(p, q)
					results[i] = append(results[i], fmt.Sprint(errors.Unwrap(err)))
				}
				switch o.kind {
				case 0:
					_ = os.WriteFile(p, []byte(fmt.Sprintf("w%d\n", seed)), 0o644)
				case 1:
					if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); err == nil {
						_, _ = f.WriteString("appended\n")
						_ = f.Close()
					}
				case 2:
					_ = os.RemoveAll(p)
				case 3:
					_ = os.MkdirAll(p, 0o755)
				case 4:
					if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
						_ = os.Rename(p, q)
					}
				case 5:
					if os.RemoveAll(p) == nil {
						_ = os.Symlink(paths[o.q], p)
					}
				case 6:
					_ = os.Chmod(p, 0o700)
				case 7:
					if os.RemoveAll(p) == nil {
						_ = os.Mkdir(p, 0o755)
						_ = os.WriteFile(filepath.Join(p, "in.txt"), []byte("in\n"), 0o644)
					}
				case 8:
					now := time.Now()
					_ = os.Chtimes(p, now, now)
				}
			}
		}
		if fmt.Sprint(results[0]) != fmt.Sprint(results[1]) {
			t.Fatalf("seed %d, ops %v: renames gave %v on the copy, %v on the overlay", seed, ops, results[0], results[1])
		}
		_, err = b.Diff(t.Context(), cp, cres, 0)
		must(t, err)
		_, err = b.Diff(t.Context(), ov, ores, 0)
		must(t, err)
		if c, o := mustRead(t, filepath.Join(cp, DiffFile)), mustRead(t, filepath.Join(ov, DiffFile)); c != o {
			t.Fatalf("seed %d, ops %v: diffs differ\ncopy:\n%s\noverlay:\n%s", seed, ops, c, o)
		}
		must(t, s.Release(ov, ores))
	}
	must(t, s.Close())
	for seed := range seeds {
		cp, ov := filepath.Join(run, "sessions", fmt.Sprintf("c%d", seed)), filepath.Join(run, "sessions", fmt.Sprintf("o%d", seed))
		if treeHash(t, cp) != treeHash(t, ov) {
			t.Errorf("seed %d: materialised tree differs\ncopy:\n%s\noverlay:\n%s", seed, listTree(t, cp), listTree(t, ov))
		}
		noMarks(t, ov)
	}
}
