//go:build linux

package workspace

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Release ends a case's overlay: the session folder is unmounted and what
// the case wrote (the upper layer: the session's own files, the workspace
// files it changed or added, whiteouts for those it deleted) is moved into
// it, so the folder can be read, kept or removed like any other; the
// base's unchanged files are put back by Materialise. Without an overlay
// it does nothing. It is idempotent.
func (b *Base) Release(clone CloneResult) error {
	m := clone.overlay
	if m == nil || !m.released.CompareAndSwap(false, true) {
		return nil
	}
	if err := unmount(m.target); err != nil {
		m.released.Store(false)
		return err
	}
	if err := moveInto(m.upper(), m.target); err != nil {
		return err
	}
	if err := os.RemoveAll(m.layer); err != nil {
		return ioErr(err, "remove %s", m.layer)
	}
	return nil
}

// moveInto renames every entry of from into the (empty) folder to, and
// gives to from's mode and owner.
func moveInto(from, to string) error {
	ffd, err := unix.Open(from, dirFlags, 0)
	if err != nil {
		return ioErr(err, "open %s", from)
	}
	f := os.NewFile(uintptr(ffd), from)
	defer f.Close()
	tfd, err := unix.Open(to, dirFlags, 0)
	if err != nil {
		return ioErr(err, "open %s", to)
	}
	defer unix.Close(tfd)
	names, err := f.Readdirnames(-1)
	if err != nil {
		return ioErr(err, "read %s", from)
	}
	for _, n := range names {
		if err := unix.Renameat2(ffd, n, tfd, n, unix.RENAME_NOREPLACE); err != nil {
			return ioErr(err, "move %s into %s", n, to)
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(ffd, &st); err != nil {
		return ioErr(err, "stat %s", from)
	}
	if err := unix.Fchown(tfd, int(st.Uid), int(st.Gid)); err != nil {
		return ioErr(err, "chown %s", to)
	}
	if err := unix.Fchmod(tfd, st.Mode&0o7777); err != nil {
		return ioErr(err, "chmod %s", to)
	}
	return nil
}

// Materialise completes a released session folder dst with the base's
// entries the case left as they were: each folder made, each file a hard
// link to the base's (a copy where the file system refuses one), each link
// made again; then the overlay's marks (whiteouts, opaque folders) are
// removed. dst then holds the case's final state, as a clone's would. The
// folder was written by tools: it is walked by descriptor, never following
// a link, and the base is only added where the case left no entry of its
// own. Call it once the base is no lower layer of any mounted case: the
// links share the base's files.
func (b *Base) Materialise(ctx context.Context, dst string) error {
	// The session's own folders too: every folder the case made carries
	// the overlay's opaque mark (redirect_dir), to be removed.
	ups, _, err := scan(ctx, dst, 4*b.lim.MaxEntries, false)
	if err != nil {
		return err
	}
	v := b.view(ups)
	dirs := dirFDs{m: map[string]int{}}
	defer dirs.closeAll()
	top, err := unix.Open(dst, dirFlags, 0)
	if err != nil {
		return ioErr(err, "open %s", dst)
	}
	dirs.m["."] = top
	put := func(e entry, name string) error {
		if _, ok := v.present[name]; ok {
			return nil
		}
		pfd, ok := dirs.open(path.Dir(name))
		if !ok {
			return nil // under something the case made that is no folder
		}
		if err := b.putBack(pfd, path.Base(name), e); err != nil {
			return ioErr(err, "put back %s as %s in %s", e.name, name, dst)
		}
		return nil
	}
	for _, e := range b.entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if hiddenBy(e.name, v.hidden) {
			continue
		}
		if err := put(e, e.name); err != nil {
			return err
		}
	}
	for _, m := range v.moved {
		if err := put(m.e, m.name); err != nil {
			return err
		}
	}
	for _, u := range ups {
		pfd, ok := dirs.open(path.Dir(u.name))
		switch {
		case !ok:
		case u.whiteout:
			_ = unix.Unlinkat(pfd, path.Base(u.name), 0)
		case u.opaque || u.redirect:
			if fd, ok := dirs.open(u.name); ok {
				_ = unix.Fremovexattr(fd, opaqueAttr)
				_ = unix.Fremovexattr(fd, redirectAttr)
			}
		}
	}
	return nil
}

// putBack makes the base's entry e as name in the folder pfd.
func (b *Base) putBack(pfd int, name string, e entry) error {
	switch e.kind {
	case kindDir:
		if err := unix.Mkdirat(pfd, name, uint32(e.mode)); err != nil {
			return err
		}
	case kindLink:
		if err := unix.Symlinkat(e.target, pfd, name); err != nil {
			return err
		}
	default:
		src := filepath.Join(b.Dir, filepath.FromSlash(e.name))
		if err := unix.Linkat(unix.AT_FDCWD, src, pfd, name, 0); err != nil {
			if err := copyAt(src, pfd, name, e.mode); err != nil {
				return err
			}
		}
	}
	if b.lowerUID >= 0 {
		return unix.Fchownat(pfd, name, b.lowerUID, b.lowerGID, unix.AT_SYMLINK_NOFOLLOW)
	}
	return nil
}

// copyAt copies src to a new file name in the folder pfd.
func copyAt(src string, pfd int, name string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fd, err := unix.Openat(pfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(mode))
	if err != nil {
		return err
	}
	out := os.NewFile(uintptr(fd), name)
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// dirFDs holds a walk's open folders by name ("." the top), each opened
// from its parent without following a link.
type dirFDs struct{ m map[string]int }

func (d *dirFDs) open(name string) (int, bool) {
	if fd, ok := d.m[name]; ok {
		return fd, fd >= 0
	}
	pfd, ok := d.open(path.Dir(name))
	fd := -1
	if ok {
		if f, err := unix.Openat(pfd, path.Base(name), dirFlags, 0); err == nil {
			fd = f
		}
	}
	d.m[name] = fd
	return fd, fd >= 0
}

func (d *dirFDs) closeAll() {
	for _, fd := range d.m {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
}
