//go:build linux

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const oNoFollow = syscall.O_NOFOLLOW

// reflink makes dst share src's extents (FICLONE): no data is copied, and
// either file's later writes are its own (copy-on-write).
func reflink(dst, src *os.File) error {
	err := unix.IoctlFileClone(int(dst.Fd()), int(src.Fd()))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EXDEV), errors.Is(err, unix.EINVAL),
		errors.Is(err, unix.ENOTTY), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EBADF):
		return fmt.Errorf("%w: %v", errNoReflink, err)
	}
	return ioErr(err, "clone %s", dst.Name())
}

// stampOf is fi's inode, ctime and size; false when fi has no stat_t.
func stampOf(fi fs.FileInfo) (stamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}, false
	}
	return stamp{ino: int64(st.Ino), size: st.Size, ctime: time.Unix(st.Ctim.Sec, st.Ctim.Nsec)}, true
}
