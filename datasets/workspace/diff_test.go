package workspace

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDiff: a changed, a removed, an added, a binary file and a link
// planted to a host file: the diff names each, reads nothing outside the
// session, and its size is what the row records.
func TestDiff(t *testing.T) {
	_, b := folderBase(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "gone.txt": "bye\n", "bin.dat": "x\x00y", "same.txt": "same\n"})
	s := t.TempDir()
	clone, err := b.Clone(t.Context(), s, CloneOptions{UID: -1, GID: -1})
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(s, "a.txt"), []byte("one\n2\nthree\n"), 0o644))
	must(t, os.Remove(filepath.Join(s, "gone.txt")))
	must(t, os.WriteFile(filepath.Join(s, "new.txt"), []byte("fresh\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(s, "bin.dat"), []byte("x\x00z"), 0o644))
	must(t, os.Symlink("/etc/hostname", filepath.Join(s, "host")))
	must(t, os.MkdirAll(filepath.Join(s, "out"), 0o755))
	must(t, os.WriteFile(filepath.Join(s, "trace.jsonl"), []byte("{}\n"), 0o644)) // the session's own: not compared
	res, err := b.Diff(t.Context(), s, clone, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, filepath.Join(s, DiffFile))
	for _, want := range []string{
		"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
		"--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
		"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n",
		"Binary files a/bin.dat and b/bin.dat differ\n",
		"Only in b: host (link to /etc/hostname)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "same.txt") || strings.Contains(got, "trace.jsonl") {
		t.Errorf("diff names an unchanged or the session's own file:\n%s", got)
	}
	if res.Bytes != int64(len(got)) || res.Changed != 5 {
		t.Errorf("Diff() = %+v, want %d bytes, 5 changed", res, len(got))
	}
}

// TestDiffCut: a diff past its cap is cut, its whole size still counted.
func TestDiffCut(t *testing.T) {
	_, b := folderBase(t, map[string]string{"a.txt": ""})
	s := t.TempDir()
	if _, err := b.Clone(t.Context(), s, CloneOptions{UID: -1, GID: -1}); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(s, "a.txt"), bytes.Repeat([]byte("line\n"), 1000), 0o644))
	res, err := b.Diff(t.Context(), s, CloneResult{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, filepath.Join(s, DiffFile))
	if res.Bytes < 5000 || len(got) > 200 || !strings.Contains(got, "diff cut at 100") {
		t.Errorf("Diff() = %+v, file of %d bytes:\n%s", res, len(got), got)
	}
}

// TestUnifiedAgreesWithDiff: hunks match GNU diff -u on random edits.
func TestUnifiedAgreesWithDiff(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("no diff here")
	}
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for i := range 200 {
		var a []string
		for range r.IntN(40) {
			a = append(a, string(rune('a'+r.IntN(5)))+"\n")
		}
		b := append([]string(nil), a...)
		for range r.IntN(6) {
			k := r.IntN(len(b) + 1)
			switch r.IntN(3) {
			case 0:
				b = append(b[:k], append([]string{"new\n"}, b[k:]...)...)
			case 1:
				if k < len(b) {
					b = append(b[:k], b[k+1:]...)
				}
			case 2:
				if k < len(b) {
					b[k] = "changed\n"
				}
			}
		}
		x, y := strings.Join(a, ""), strings.Join(b, "")
		var got bytes.Buffer
		must(t, unified(&got, "x", "y", x, y))
		must(t, os.WriteFile(filepath.Join(dir, "x"), []byte(x), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "y"), []byte(y), 0o644))
		out, _ := exec.Command("diff", "-u", filepath.Join(dir, "x"), filepath.Join(dir, "y")).Output()
		// Compare the number of changed lines (both minimal): the hunks
		// may place an equal-cost change differently.
		if count(got.String()) != count(string(out)) {
			t.Fatalf("case %d: our diff:\n%s\nGNU diff:\n%s", i, got.String(), out)
		}
		if got.Len() == 0 && x != y {
			t.Fatalf("case %d: no diff for different texts", i)
		}
	}
}

func count(d string) (n int) {
	for _, l := range strings.Split(d, "\n") {
		if (strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++")) || (strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---")) {
			n++
		}
	}
	return n
}

// TestDiffStampsSeeRewrites: a same-size rewrite in place, after the
// clone's stamps were kept, is still in the diff; untouched files are not.
func TestDiffStampsSeeRewrites(t *testing.T) {
	_, b := folderBase(t, map[string]string{"a.txt": "aaaa\n", "b.txt": "bbbb\n"})
	s := t.TempDir()
	clone, err := b.Clone(t.Context(), s, CloneOptions{Mechanism: Copy, UID: -1, GID: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The stamps a longer clone keeps (its early files'), once the file
	// system's clock has moved past them: a change now gets a later ctime.
	clone.stamps = map[string]stamp{}
	var last time.Time
	for _, n := range []string{"a.txt", "b.txt"} {
		fi, err := os.Lstat(filepath.Join(s, n))
		must(t, err)
		clone.stamps[n], _ = stampOf(fi) // none off Linux: Diff reads every file
		if c := clone.stamps[n].ctime; c.After(last) {
			last = c
		}
	}
	if !last.IsZero() {
		waitCtimePast(t, t.TempDir(), last)
	}
	f, err := os.OpenFile(filepath.Join(s, "a.txt"), os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt([]byte("AAAA"), 0)
	must(t, err)
	must(t, f.Close())
	res, err := b.Diff(t.Context(), s, clone, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, filepath.Join(s, DiffFile))
	if res.Changed != 1 || !strings.Contains(got, "-aaaa\n+AAAA\n") {
		t.Errorf("Diff() = %+v:\n%s", res, got)
	}
}

// TestDiffHostileSession: links to host files and folders, and a FIFO, left
// where the workspace's files were: the diff names them, reads nothing of
// the host and does not block.
func TestDiffHostileSession(t *testing.T) {
	_, b := folderBase(t, map[string]string{"a.txt": "alpha\n", "d/b.txt": "beta\n"})
	s := t.TempDir()
	clone, err := b.Clone(t.Context(), s, CloneOptions{UID: -1, GID: -1})
	if err != nil {
		t.Fatal(err)
	}
	host := t.TempDir()
	must(t, os.WriteFile(filepath.Join(host, "secret"), []byte("TOP-SECRET\n"), 0o644))
	must(t, os.Remove(filepath.Join(s, "a.txt")))
	must(t, os.Symlink(filepath.Join(host, "secret"), filepath.Join(s, "a.txt")))
	must(t, os.RemoveAll(filepath.Join(s, "d")))
	must(t, os.Symlink(host, filepath.Join(s, "d")))
	must(t, mkfifo(filepath.Join(s, "pipe")))
	done := make(chan struct{})
	var res DiffResult
	go func() {
		defer close(done)
		res, err = b.Diff(t.Context(), s, clone, 0)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Diff blocked")
	}
	if err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, filepath.Join(s, DiffFile))
	if strings.Contains(got, "TOP-SECRET") {
		t.Fatalf("the diff read a host file:\n%s", got)
	}
	for _, want := range []string{
		"File a/a.txt is a regular file while b/a.txt is a link\n",
		"--- a/d/b.txt\n+++ /dev/null\n",
		"Only in b: d (link to " + host + ")\n",
		"Only in b: pipe (a FIFO)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	if res.Changed != 4 {
		t.Errorf("%d changed, want 4", res.Changed)
	}
}

// waitCtimePast returns once a file changed in dir gets a ctime after t:
// the kernel stamps ctimes at its clock tick (up to 10 ms), so a change
// made within the tick of t could carry t itself.
func waitCtimePast(t *testing.T, dir string, at time.Time) {
	t.Helper()
	probe := filepath.Join(dir, "probe")
	must(t, os.WriteFile(probe, nil, 0o600))
	for deadline := time.Now().Add(10 * time.Second); ; {
		must(t, os.Chmod(probe, 0o600)) // a change: a new ctime
		fi, err := os.Lstat(probe)
		must(t, err)
		if st, _ := stampOf(fi); st.ctime.After(at) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the file system's ctime did not pass %v in 10 s", at)
		}
		runtime.Gosched()
	}
}
