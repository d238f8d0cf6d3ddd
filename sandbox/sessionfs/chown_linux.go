//go:build linux

package sessionfs

import (
	"errors"
	"fmt"
	"slices"

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
