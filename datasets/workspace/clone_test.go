package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func folderBase(t testing.TB, files map[string]string) (src string, b *Base) {
	t.Helper()
	dir := t.TempDir()
	src = filepath.Join(dir, "src")
	writeFiles(t, src, files)
	b, err := Prepare(context.Background(), src, "dir", filepath.Join(dir, "run", DirName, "x"), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return src, b
}

// TestCloneIsolation: two cases share one base; one deletes, rewrites in
// place, appends to and replaces files; the other still sees the original,
// and neither the base nor the source changes.
func TestCloneIsolation(t *testing.T) {
	for _, mech := range []Mechanism{Auto, Copy} {
		t.Run(string(mech), func(t *testing.T) {
			src, b := folderBase(t, map[string]string{"a.txt": "alpha\n", "d/b.txt": "beta\n", "d/e/c.txt": "gamma\n"})
			srcHash, baseHash := treeHash(t, src), treeHash(t, b.Dir)
			one, two := t.TempDir(), t.TempDir()
			for _, d := range []string{one, two} {
				res, err := b.Clone(t.Context(), d, CloneOptions{Mechanism: mech, UID: -1, GID: -1})
				if err != nil {
					t.Fatal(err)
				}
				if res.Files != 3 {
					t.Errorf("cloned %d files, want 3", res.Files)
				}
			}
			// Case one: every way a tool changes files.
			must(t, os.Remove(filepath.Join(one, "a.txt")))
			must(t, os.WriteFile(filepath.Join(one, "a.txt"), []byte("rewritten\n"), 0o644))
			f, err := os.OpenFile(filepath.Join(one, "d/b.txt"), os.O_WRONLY|os.O_TRUNC, 0)
			must(t, err)
			_, err = f.WriteString("in place\n")
			must(t, err)
			must(t, f.Close())
			must(t, os.RemoveAll(filepath.Join(one, "d/e")))
			must(t, os.Chmod(filepath.Join(one, "d"), 0o700))
			if got := mustRead(t, filepath.Join(two, "a.txt")); got != "alpha\n" {
				t.Errorf("case two sees a.txt %q", got)
			}
			if got := mustRead(t, filepath.Join(two, "d/b.txt")); got != "beta\n" {
				t.Errorf("case two sees d/b.txt %q", got)
			}
			if got := mustRead(t, filepath.Join(two, "d/e/c.txt")); got != "gamma\n" {
				t.Errorf("case two sees d/e/c.txt %q", got)
			}
			if treeHash(t, src) != srcHash {
				t.Error("the source changed")
			}
			if treeHash(t, b.Dir) != baseHash {
				t.Error("the base changed")
			}
			// A clone is writable in place (not the base's read-only mode).
			fi, err := os.Stat(filepath.Join(two, "a.txt"))
			must(t, err)
			if fi.Mode().Perm() != 0o644 {
				t.Errorf("clone mode %v, want 0644", fi.Mode())
			}
		})
	}
}

// TestCloneForcedReflink: forcing reflink on a file system without them
// fails with E-IO-003 and a hint; auto falls back to a copy.
func TestCloneForcedReflink(t *testing.T) {
	_, b := folderBase(t, map[string]string{"a.txt": "alpha\n"})
	res, err := b.Clone(t.Context(), t.TempDir(), CloneOptions{Mechanism: Reflink, UID: -1, GID: -1})
	if err == nil {
		if res.Mechanism != Reflink {
			t.Fatalf("forced reflink used %s", res.Mechanism)
		}
		t.Skip("this file system has reflinks")
	}
	if got := errcode.Code(err); got != errcode.IO {
		t.Fatalf("code %q (%v), want %q", got, err, errcode.IO)
	}
	res, err = b.Clone(t.Context(), t.TempDir(), CloneOptions{UID: -1, GID: -1})
	if err != nil || res.Mechanism != Copy {
		t.Fatalf("auto: %s, %v; want a copy", res.Mechanism, err)
	}
}

// TestCloneOwner: as root, what Clone makes belongs to the tool user.
func TestCloneOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root")
	}
	_, b := folderBase(t, map[string]string{"d/a.txt": "alpha\n"})
	dst := t.TempDir()
	if _, err := b.Clone(t.Context(), dst, CloneOptions{UID: 65534, GID: 65534}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"d", "d/a.txt"} {
		fi, err := os.Lstat(filepath.Join(dst, p))
		must(t, err)
		if uid := ownerOf(fi); uid != 65534 {
			t.Errorf("%s owned by %d, want 65534", p, uid)
		}
	}
}

// TestSetReadsOnce: many cases asking at once read the workspace once.
func TestSetReadsOnce(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeFiles(t, src, map[string]string{"a": "a"})
	s := NewSet(filepath.Join(dir, "run"), DefaultLimits())
	var wg sync.WaitGroup
	bases := make([]*Base, 8)
	for i := range bases {
		wg.Go(func() {
			b, err := s.Base(t.Context(), src, "dir")
			if err != nil {
				t.Error(err)
			}
			bases[i] = b
		})
	}
	wg.Wait()
	for _, b := range bases[1:] {
		if b != bases[0] {
			t.Fatal("two bases for one workspace")
		}
	}
	if !strings.HasPrefix(bases[0].Dir, filepath.Join(dir, "run", DirName)) {
		t.Errorf("base at %s, want under the run folder", bases[0].Dir)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// benchFiles makes a workspace of n files totalling about bytes.
func benchFiles(b *testing.B, n int, bytes int) map[string]string {
	files := make(map[string]string, n)
	body := strings.Repeat("0123456789abcdef", bytes/n/16+1)[:bytes/n]
	for i := range n {
		files[fmt.Sprintf("pkg%02d/sub%d/file%04d.go", i%50, i%7, i)] = body
	}
	return files
}

// BenchmarkClone is a case's set-up of a 5,000-file, 50 MB workspace, per
// mechanism this file system has (BENCHMARKS.md). Set
// MURMUR_EVAL_BENCH_DIR to measure on another file system (a btrfs or
// XFS mount for reflinks).
func BenchmarkClone(b *testing.B) {
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
	base, err := Prepare(b.Context(), src, "dir", filepath.Join(root, "run", DirName, "x"), DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	for _, mech := range []Mechanism{Reflink, Copy} {
		b.Run(string(mech), func(b *testing.B) {
			dst := filepath.Join(root, "cases-"+string(mech))
			must(b, os.MkdirAll(dst, 0o755))
			n := 0
			for b.Loop() {
				n++
				d := filepath.Join(dst, fmt.Sprint(n))
				must(b, os.Mkdir(d, 0o755))
				if _, err := base.Clone(b.Context(), d, CloneOptions{Mechanism: mech, UID: -1, GID: -1}); err != nil {
					if mech == Reflink {
						b.Skipf("no reflinks here: %v", err)
					}
					b.Fatal(err)
				}
				b.StopTimer()
				must(b, os.RemoveAll(d))
				b.StartTimer()
			}
		})
	}
}

// BenchmarkDiff is a case's diff of an unchanged 5,000-file, 50 MB
// workspace against its base (the Report stage's extra work).
func BenchmarkDiff(b *testing.B) {
	root := b.TempDir()
	src := filepath.Join(root, "src")
	writeFiles(b, src, benchFiles(b, 5000, 50<<20))
	base, err := Prepare(b.Context(), src, "dir", filepath.Join(root, "run", DirName, "x"), DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	d := filepath.Join(root, "case")
	must(b, os.Mkdir(d, 0o755))
	clone, err := base.Clone(b.Context(), d, CloneOptions{Mechanism: Copy, UID: -1, GID: -1})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := base.Diff(b.Context(), d, clone, 0); err != nil {
			b.Fatal(err)
		}
	}
}
