package sandbox

import (
	"io/fs"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// guestFS is a host directory as a guest sees it, with two refusals on top
// of wazero's DirFS:
//
//   - the guest may not create symlinks: DirFS refuses absolute link
//     targets but writes relative ones verbatim, and the host kernel then
//     follows "../../etc/passwd" out of the mount. Links that the harness
//     itself stages are still followed.
//   - the guest may not modify a regular file that has other hard links.
//     The harness hard-links each tool's files into every session rather
//     than copying them, so such a file is shared with other cases; writing
//     to it, truncating it, or changing its mode or times would reach them
//     (as root, file modes would not stop it). Reading it is fine, and
//     removing or renaming the guest's own link only affects its session.
type guestFS struct{ experimentalsys.FS }

// Symlink implements experimentalsys.FS by refusing.
func (guestFS) Symlink(_, _ string) experimentalsys.Errno { return experimentalsys.EPERM }

// OpenFile refuses to open a shared file for writing or truncation.
func (g guestFS) OpenFile(path string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	const writes = experimentalsys.O_RDWR | experimentalsys.O_WRONLY | experimentalsys.O_TRUNC | experimentalsys.O_APPEND
	if flag&writes != 0 && g.shared(path) {
		return nil, experimentalsys.EACCES
	}
	return g.FS.OpenFile(path, flag, perm)
}

// Chmod refuses to change a shared file's mode.
func (g guestFS) Chmod(path string, perm fs.FileMode) experimentalsys.Errno {
	if g.shared(path) {
		return experimentalsys.EPERM
	}
	return g.FS.Chmod(path, perm)
}

// Utimens refuses to change a shared file's times.
func (g guestFS) Utimens(path string, atim, mtim int64) experimentalsys.Errno {
	if g.shared(path) {
		return experimentalsys.EPERM
	}
	return g.FS.Utimens(path, atim, mtim)
}

// shared reports whether path is a regular file with more than one link.
// Guests are single-threaded, so nothing changes between this check and
// the call it guards; renaming a shared file keeps its link count.
func (g guestFS) shared(path string) bool {
	st, errno := g.FS.Lstat(path)
	return errno == 0 && st.Mode.IsRegular() && st.Nlink > 1
}

// dirFS returns dir as a guest file system.
func dirFS(dir string) experimentalsys.FS { return guestFS{sysfs.DirFS(dir)} }
