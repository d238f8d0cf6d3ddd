package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// guestFS is a host directory as a guest sees it: its "/". Every path is
// resolved by an os.Root opened on the directory, so nothing the guest
// names, and no symlink it meets on the way, reaches outside: after the
// first tool call the session folder is hostile, and a shell tool may have
// left "hostroot -> /" or "x -> ../../etc/shadow" in it. Links that resolve
// inside the directory are followed; absolute links, links climbing out
// and ".." past the top fail (EPERM, or ELOOP past eight links). See
// rootFile for the files it opens. On top of that the guest
//
//   - may not create symlinks (EPERM). Links a shell tool or the harness
//     made are still followed, inside the directory only.
//   - may not modify a regular file that has other hard links. The harness
//     hard-links each tool's files into every session rather than copying
//     them, so such a file is shared with other cases; writing to it,
//     truncating it, or changing its mode or times would reach them (as
//     root, file modes would not stop it). Reading it is fine, and removing
//     or renaming the guest's own link only affects its session. The check
//     is made on the opened file, before any truncation.
//   - may open only regular files and directories: a FIFO, socket or device
//     a shell tool left behind fails with EACCES instead of blocking the
//     host thread (the open itself is non-blocking).
//
// A guestFS owns its Root; Run closes it when the call ends.
type guestFS struct {
	experimentalsys.UnimplementedFS
	root *os.Root
}

// openGuestFS creates dir if missing and opens it as a guest file system.
// When session is not empty, dir must lie beneath it and is created and
// opened from the session's own Root: a tool may have replaced a scope
// folder of the session by a link, and that link is then followed only
// inside the session. session itself (and dir without a session) is the
// harness's own path and is opened as it stands.
func openGuestFS(session, dir string) (*guestFS, error) {
	if session == "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		r, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		return &guestFS{root: r}, nil
	}
	rel, err := filepath.Rel(session, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, &fs.PathError{Op: "mount", Path: dir, Err: errors.New("not beneath the session folder")}
	}
	if err := os.MkdirAll(session, 0o755); err != nil {
		return nil, err
	}
	s, err := os.OpenRoot(session)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := s.MkdirAll(rel, 0o755); err != nil {
		return nil, err
	}
	r, err := s.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	return &guestFS{root: r}, nil
}

// close releases the Root. Files the guest left open keep their own
// descriptors; wazero closes them with the module.
func (g *guestFS) close() { _ = g.root.Close() }

// name turns a wazero path into an os.Root name. wazero hands over paths
// relative to the mount but may prefix them with "/" (a directory the
// guest opened as "/" joins as "" + "/" + name); the top is ".". os.Root
// walks a path one component at a time, so unlike a plain open it has no
// length limit: a path longer than PATH_MAX is refused here, as the kernel
// would, so that a guest cannot nest files deeper than host tools (and
// murmur-eval's own walks by path) can reach.
func name(path string) (string, experimentalsys.Errno) {
	if len(path) >= pathMax {
		return "", experimentalsys.ENAMETOOLONG
	}
	if p := strings.TrimLeft(path, "/"); p != "" {
		return p, 0
	}
	return ".", 0
}

// errnoOf maps an error from os.Root or an *os.File to a guest errno. What
// is not a system error is os.Root refusing a path that leaves the
// directory ("path escapes from parent", an empty name, a mode it does not
// take): EPERM, as wazero answers an absolute or ".." path.
func errnoOf(err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	var se syscall.Errno
	switch {
	case errors.As(err, &se):
		return experimentalsys.UnwrapOSError(se)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrExist),
		errors.Is(err, fs.ErrClosed), errors.Is(err, fs.ErrInvalid):
		return experimentalsys.UnwrapOSError(err)
	}
	return experimentalsys.EPERM
}

// pathMax is Linux's PATH_MAX, the guest's limit on every host.
const pathMax = 4096

var _ experimentalsys.FS = (*guestFS)(nil)
