//go:build linux

package sessionfs

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// ChownDirs gives dir and every folder below it to uid and gid, but the
// top-level folders named in skip (and what is below them). It walks as
// Size does, by descriptor: a folder is changed with fchownat relative to
// its parent's descriptor and AT_SYMLINK_NOFOLLOW, so a link or a swapped
// path can never turn it on a host file, and no depth stops it. Files are
// left alone. A folder that vanishes while it walks is skipped; one moved
// under the walk is ErrChanged.
func ChownDirs(dir string, uid, gid int, skip ...string) error {
	fd, err := unix.Open(dir, dirFlags, 0)
	if err != nil {
		return fmt.Errorf("hand over %s: %w", dir, err)
	}
	if err := unix.Fchown(fd, uid, gid); err != nil {
		_ = unix.Close(fd)
		return fmt.Errorf("hand over %s: %w", dir, err)
	}
	w := &walk{onDir: func(parent int, name string, st *unix.Stat_t, depth int) (bool, error) {
		if depth == 1 && slices.Contains(skip, name) {
			return true, nil
		}
		if int(st.Uid) == uid && int(st.Gid) == gid {
			return false, nil
		}
		err := unix.Fchownat(parent, name, uid, gid, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.ENOENT) {
			return true, nil
		}
		return false, err
	}}
	defer w.closeAll()
	if err := w.push(fd); err != nil {
		return fmt.Errorf("hand over %s: %w", dir, err)
	}
	if _, err := w.run(); err != nil {
		return fmt.Errorf("hand over %s: %w", dir, err)
	}
	return nil
}

// ChownLayerDirs is ChownDirs for a session that is an overlay whose
// writable layer is the folder upper: only the folders present in upper
// (created or copied up during the case; the base's were given to uid
// once per run) are looked at, so its cost follows what the case changed,
// not the workspace's size. upper is walked by descriptor as Size walks;
// each folder not yet owned by uid and gid is changed through the merged
// view dir (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS to its parent,
// then fchownat with AT_SYMLINK_NOFOLLOW), never in upper itself, so the
// overlay's own inode sees the new owner and no link is followed on
// either side. A folder that vanishes meanwhile is skipped.
func ChownLayerDirs(dir, upper string, uid, gid int, skip ...string) error {
	root, err := unix.Open(dir, dirFlags, 0)
	if err != nil {
		return fmt.Errorf("hand over %s: %w", dir, err)
	}
	defer func() { _ = unix.Close(root) }()
	if err := unix.Fchown(root, uid, gid); err != nil {
		return fmt.Errorf("hand over %s: %w", dir, err)
	}
	fd, err := unix.Open(upper, dirFlags, 0)
	if err != nil {
		return fmt.Errorf("hand over %s: %w", dir, err)
	}
	var path []string // the folder being entered's path below upper
	w := &walk{onDir: func(_ int, name string, st *unix.Stat_t, depth int) (bool, error) {
		if depth == 1 && slices.Contains(skip, name) {
			return true, nil
		}
		path = append(path[:depth-1], name)
		if int(st.Uid) == uid && int(st.Gid) == gid {
			return false, nil
		}
		return false, chownBeneath(root, path, uid, gid)
	}}
	defer w.closeAll()
	if err := w.push(fd); err != nil {
		return fmt.Errorf("hand over %s: %w", dir, err)
	}
	if _, err := w.run(); err != nil {
		return fmt.Errorf("hand over %s: %w", dir, err)
	}
	return nil
}

// chownBeneath gives the folder at path below root to uid and gid.
func chownBeneath(root int, path []string, uid, gid int) error {
	parent, name := root, path[len(path)-1]
	if len(path) > 1 {
		fd, err := unix.Openat2(root, strings.Join(path[:len(path)-1], "/"), &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return nil // gone, or a link now: never followed, nothing to hand over
		}
		if err != nil {
			return err
		}
		defer func() { _ = unix.Close(fd) }()
		parent = fd
	}
	var st unix.Stat_t
	if err := unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil // gone, or no longer a folder: nothing to hand over
	}
	err := unix.Fchownat(parent, name, uid, gid, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}
