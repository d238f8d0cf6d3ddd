package workspace

import (
	"archive/tar"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// FuzzUnpack: whatever an archive holds, reading it either fails with one
// of the workspace's codes or gives a base whose every entry is a file, a
// folder or a link that stays inside, and nothing is written outside it.
func FuzzUnpack(f *testing.F) {
	f.Add([]byte{0}, buildTar(f, false, file("a/b.txt", "x"), tarEntry{name: "l", link: "a/b.txt", typ: tar.TypeSymlink}))
	f.Add([]byte{1}, buildTar(f, true, file("../x", "x")))
	f.Add([]byte{2}, buildZip(f, zipEntry{name: "a/b", body: "x"}, zipEntry{name: "l", body: "../../x", mode: fs.ModeSymlink}))
	f.Add([]byte{0}, buildTar(f, false, tarEntry{name: "h", link: "a", typ: tar.TypeLink}, file("a", "1")))
	f.Add([]byte{0}, buildTar(f, false, tarEntry{name: "d/l1", link: "..", typ: tar.TypeSymlink}, tarEntry{name: "l2", link: "d/l1/..", typ: tar.TypeSymlink}))
	kinds := []string{"tar", "tar.gz", "zip"}
	lim := Limits{MaxEntries: 64, MaxBytes: 1 << 16, MaxEntryBytes: 1 << 14}
	f.Fuzz(func(t *testing.T, k []byte, data []byte) {
		if len(k) == 0 {
			return
		}
		kind := kinds[int(k[0])%len(kinds)]
		dir := t.TempDir()
		src := filepath.Join(dir, "ws")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		baseDir := filepath.Join(dir, "run", "base")
		b, err := Prepare(t.Context(), src, kind, baseDir, lim)
		// Nothing but the source and the run folder at the top.
		des, _ := os.ReadDir(dir)
		for _, d := range des {
			if d.Name() != "ws" && d.Name() != "run" {
				t.Fatalf("%s written outside the base", d.Name())
			}
		}
		if err != nil {
			switch errcode.Code(err) {
			case errcode.WorkspaceEntry, errcode.WorkspaceLimit, errcode.IO:
				return
			}
			t.Fatalf("code %q: %v", errcode.Code(err), err)
		}
		_ = filepath.WalkDir(baseDir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				tgt, _ := os.Readlink(p)
				res := filepath.Join(filepath.Dir(p), tgt)
				if rel, err := filepath.Rel(baseDir, res); err != nil || !(filepath.IsLocal(rel) || rel == ".") {
					t.Fatalf("link %s -> %s leads out", p, tgt)
				}
				// Followed through the base's other links, it stays inside.
				if r, err := filepath.EvalSymlinks(p); err == nil {
					if rel, err := filepath.Rel(baseDir, r); err != nil || !(filepath.IsLocal(rel) || rel == ".") {
						t.Fatalf("link %s resolves to %s, outside", p, r)
					}
				}
			case d.IsDir(), d.Type().IsRegular():
			default:
				t.Fatalf("%s is a %v", p, d.Type())
			}
			return nil
		})
		// And a clone of it works.
		if _, err := b.Clone(t.Context(), t.TempDir(), CloneOptions{Mechanism: Copy, UID: -1, GID: -1}); err != nil {
			t.Fatalf("clone: %v", err)
		}
	})
}
