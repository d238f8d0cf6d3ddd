package sandbox

import (
	"io/fs"
	"os"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// The path operations of guestFS: each resolves its path through the
// os.Root, so a link is followed only while it stays inside the directory.

// createMode and mkdirMode are what guests create, whatever wazero asks
// (0600 and 0700): the modes a wasmtime guest gets under the usual 022
// umask, as in murmur. Guests run as murmur-eval's user, often root, and
// the shell tools and checks that run after them as the unprivileged tool
// user must be able to read what they wrote.
const (
	createMode fs.FileMode = 0o644
	mkdirMode  fs.FileMode = 0o755
)

// OpenFile opens path without blocking and returns it only if it is a
// regular file or a directory. A write or truncation of a shared file is
// refused after the open and before any byte changes: the open never
// carries O_TRUNC, the truncation is done on the checked file.
func (g *guestFS) OpenFile(path string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	p, errno := name(path)
	if errno != 0 {
		return nil, errno
	}
	if flag&experimentalsys.O_NOFOLLOW != 0 {
		// os.Root follows a final link itself (inside the root); the
		// guest asked not to.
		if fi, err := g.root.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, experimentalsys.ELOOP
		}
	}
	f, err := g.root.OpenFile(p, osOpenFlag(flag), createMode)
	if err != nil {
		return nil, errnoOf(err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, errnoOf(err)
	}
	switch {
	case fi.IsDir():
	case fi.Mode().IsRegular():
		if flag&writeFlags != 0 && shared(fi) {
			_ = f.Close()
			return nil, experimentalsys.EACCES
		}
		if flag&experimentalsys.O_TRUNC != 0 && fi.Size() != 0 {
			if err := f.Truncate(0); err != nil {
				_ = f.Close()
				return nil, errnoOf(err)
			}
		}
	default: // FIFO, socket, device
		_ = f.Close()
		return nil, experimentalsys.EACCES
	}
	return newRootFile(f, flag, fi), 0
}

// writeFlags are the open flags that let a file's content change.
const writeFlags = experimentalsys.O_RDWR | experimentalsys.O_WRONLY | experimentalsys.O_TRUNC | experimentalsys.O_APPEND

// osOpenFlag converts wazero's flags for os.Root.OpenFile: always
// non-blocking, never truncating (OpenFile truncates after its checks),
// and without O_NOFOLLOW, which os.Root adds to every step itself.
func osOpenFlag(flag experimentalsys.Oflag) int {
	var o int
	switch flag & (experimentalsys.O_RDONLY | experimentalsys.O_RDWR | experimentalsys.O_WRONLY) {
	case experimentalsys.O_RDWR:
		o = os.O_RDWR
	case experimentalsys.O_WRONLY:
		o = os.O_WRONLY
	default:
		o = os.O_RDONLY
	}
	for _, m := range [...]struct {
		w experimentalsys.Oflag
		o int
	}{
		{experimentalsys.O_APPEND, os.O_APPEND},
		{experimentalsys.O_CREAT, os.O_CREATE},
		{experimentalsys.O_EXCL, os.O_EXCL},
		{experimentalsys.O_DIRECTORY, oDirectory},
		{experimentalsys.O_DSYNC, oDsync},
		{experimentalsys.O_RSYNC, oRsync},
		{experimentalsys.O_SYNC, os.O_SYNC},
	} {
		if flag&m.w != 0 {
			o |= m.o
		}
	}
	return o | oNonblock
}

// shared reports whether fi is a regular file with more than one link.
func shared(fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && linkCount(fi) > 1
}

// Lstat implements experimentalsys.FS.
func (g *guestFS) Lstat(path string) (sys.Stat_t, experimentalsys.Errno) {
	return statWith(path, g.root.Lstat)
}

// Stat implements experimentalsys.FS.
func (g *guestFS) Stat(path string) (sys.Stat_t, experimentalsys.Errno) {
	return statWith(path, g.root.Stat)
}

// statWith is Stat or Lstat through stat, one of the root's.
func statWith(path string, stat func(string) (fs.FileInfo, error)) (sys.Stat_t, experimentalsys.Errno) {
	p, errno := name(path)
	if errno != 0 {
		return sys.Stat_t{}, errno
	}
	fi, err := stat(p)
	if err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	return sys.NewStat_t(fi), 0
}

// Mkdir implements experimentalsys.FS.
func (g *guestFS) Mkdir(path string, perm fs.FileMode) experimentalsys.Errno {
	p, errno := name(path)
	if errno != 0 {
		return errno
	}
	errno = errnoOf(g.root.Mkdir(p, mkdirMode))
	if errno == experimentalsys.ENOTDIR {
		errno = experimentalsys.ENOENT // as wazero's DirFS
	}
	return errno
}

// Chmod changes permission bits only (never setuid, setgid or sticky: the
// files are root's when murmur-eval is) and refuses a shared file.
func (g *guestFS) Chmod(path string, perm fs.FileMode) experimentalsys.Errno {
	p, errno := name(path)
	if errno != 0 {
		return errno
	}
	fi, err := g.root.Stat(p)
	if err != nil {
		return errnoOf(err)
	}
	if shared(fi) {
		return experimentalsys.EPERM
	}
	return errnoOf(g.root.Chmod(p, perm&fs.ModePerm))
}

// Rename implements experimentalsys.FS. os.Root refuses to replace a
// directory (EEXIST); a file onto a directory is EISDIR as rename(2) says.
func (g *guestFS) Rename(from, to string) experimentalsys.Errno {
	f, errno := name(from)
	if errno != 0 {
		return errno
	}
	t, errno := name(to)
	if errno != 0 {
		return errno
	}
	if f == t {
		return 0
	}
	errno = errnoOf(g.root.Rename(f, t))
	if errno == experimentalsys.EEXIST {
		if fi, err := g.root.Lstat(f); err == nil && !fi.IsDir() {
			errno = experimentalsys.EISDIR
		}
	}
	return errno
}

// Rmdir removes a directory, never a file.
func (g *guestFS) Rmdir(path string) experimentalsys.Errno {
	p, errno := name(path)
	if errno != 0 {
		return errno
	}
	fi, err := g.root.Lstat(p)
	if err != nil {
		return errnoOf(err)
	}
	if !fi.IsDir() {
		return experimentalsys.ENOTDIR
	}
	return errnoOf(g.root.Remove(p))
}

// Unlink removes a file or link, never a directory.
func (g *guestFS) Unlink(path string) experimentalsys.Errno {
	p, errno := name(path)
	if errno != 0 {
		return errno
	}
	fi, err := g.root.Lstat(p)
	if err != nil {
		return errnoOf(err)
	}
	if fi.IsDir() {
		return experimentalsys.EISDIR
	}
	return errnoOf(g.root.Remove(p))
}

// Link implements experimentalsys.FS: both names resolve inside the root.
// A link to a symlink is a link to the symlink itself, still resolved by
// the root when used.
func (g *guestFS) Link(oldPath, newPath string) experimentalsys.Errno {
	o, errno := name(oldPath)
	if errno != 0 {
		return errno
	}
	n, errno := name(newPath)
	if errno != 0 {
		return errno
	}
	return errnoOf(g.root.Link(o, n))
}

// Symlink implements experimentalsys.FS by refusing: see guestFS.
func (*guestFS) Symlink(_, _ string) experimentalsys.Errno { return experimentalsys.EPERM }

// Readlink returns a link's text; reading it reaches nothing.
func (g *guestFS) Readlink(path string) (string, experimentalsys.Errno) {
	p, errno := name(path)
	if errno != 0 {
		return "", errno
	}
	s, err := g.root.Readlink(p)
	if err != nil {
		return "", errnoOf(err)
	}
	return s, 0
}

// Utimens sets the times of path (following links inside the root) and
// refuses a shared file.
func (g *guestFS) Utimens(path string, atim, mtim int64) experimentalsys.Errno {
	p, errno := name(path)
	if errno != 0 {
		return errno
	}
	fi, err := g.root.Stat(p)
	if err != nil {
		return errnoOf(err)
	}
	if shared(fi) {
		return experimentalsys.EPERM
	}
	if atim == experimentalsys.UTIME_OMIT && mtim == experimentalsys.UTIME_OMIT {
		return 0
	}
	return errnoOf(g.root.Chtimes(p, nsecTime(atim), nsecTime(mtim)))
}

// nsecTime converts a wazero timestamp for os.Root.Chtimes, whose zero
// time leaves the value unchanged.
func nsecTime(ns int64) time.Time {
	if ns == experimentalsys.UTIME_OMIT {
		return time.Time{}
	}
	return time.Unix(0, ns)
}
