//go:build linux

package workspace

import (
	"errors"
	"fmt"
	"os"
	"syscall"

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
