//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// The guest file system's calls that POSIX systems share.

const (
	oDirectory = syscall.O_DIRECTORY
	oDsync     = syscall.O_DSYNC
	oNonblock  = syscall.O_NONBLOCK
)

// setAppendFD toggles O_APPEND on fd with fcntl(2).
func setAppendFD(fd int, enable bool) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if enable {
		fl |= unix.O_APPEND
	} else {
		fl &^= unix.O_APPEND
	}
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl)
	return err
}

// pwriteFD writes all of buf at off with pwrite(2): os.File.WriteAt
// refuses a file opened for appending, and append mode may have changed
// since the open.
func pwriteFD(fd int, buf []byte, off int64) (int, error) {
	var n int
	for n < len(buf) {
		m, err := unix.Pwrite(fd, buf[n:], off+int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, unix.EIO
		}
		n += m
	}
	return n, nil
}

// inodeOf is fi's inode number, 0 when unknown.
func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// linkCount is fi's number of hard links, 0 when unknown.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
