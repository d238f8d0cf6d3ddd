package sessionfs

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzNames writes, appends to and reads any name in a session folder next
// to a sentinel folder: whatever the name, nothing appears or changes
// outside the session, and a name CheckName accepts is local.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"out/result.txt", "../x", "/etc/passwd", "a/../../b", ".", "", "a/./b/", "..\\x", "a\x00b", "logs//x.log", "x/.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		top := t.TempDir()
		sess, side := filepath.Join(top, "sess"), filepath.Join(top, "side")
		must(t, os.Mkdir(sess, 0o755))
		must(t, os.Mkdir(side, 0o755))
		must(t, os.Symlink(side, filepath.Join(sess, "link")))
		if n, err := CheckName(name); err == nil && !filepath.IsLocal(n) {
			t.Fatalf("CheckName(%q) = %q, not local", name, n)
		}
		r, err := Open(sess)
		must(t, err)
		defer r.Close()
		_ = r.WriteFile(name, []byte("w"), 0o644)
		if f, err := r.OpenAppend(name, 0o644); err == nil {
			_ = f.Close()
		}
		_, _ = r.ReadFile(name, 16)
		_ = r.MkdirAll(name, 0o755)
		if des, _ := os.ReadDir(side); len(des) != 0 {
			t.Fatalf("name %q: %d entries appeared in the folder a link pointed to", name, len(des))
		}
		if des, _ := os.ReadDir(top); len(des) != 2 {
			t.Fatalf("name %q: %d entries next to the session, want 2", name, len(des))
		}
	})
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
