package sandbox

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// FuzzGuestFSPath: whatever path a guest names, in a session full of
// links out, what it can stat or open is a file of the session.
func FuzzGuestFSPath(f *testing.F) {
	for _, s := range []string{
		"hostroot/etc/passwd", "abs", "rel", "sub/esc/secret.txt", "deep/upout", "inside",
		"sub/../sub/up", "/../outside", "chain1", "//hostroot", "a/../../x", "insidedir/esc/..",
	} {
		f.Add(s)
	}
	p := plantSession(f)
	inside := map[[2]uint64]bool{}
	err := filepath.WalkDir(p.session, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		inside[[2]uint64{uint64(st.Dev), uint64(st.Ino)}] = true
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	g := openTestFS(f, p.session)
	f.Fuzz(func(t *testing.T, path string) {
		if st, errno := g.Stat(path); errno == 0 && !inside[[2]uint64{st.Dev, st.Ino}] {
			t.Errorf("Stat(%q) reached %d/%d, outside the session", path, st.Dev, st.Ino)
		}
		file, errno := g.OpenFile(path, experimentalsys.O_RDONLY, 0)
		if errno != 0 {
			return
		}
		defer file.Close()
		dev, _ := file.Dev()
		ino, _ := file.Ino()
		if !inside[[2]uint64{dev, ino}] {
			t.Errorf("OpenFile(%q) reached %d/%d, outside the session", path, dev, ino)
		}
	})
}
