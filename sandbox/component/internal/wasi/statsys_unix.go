//go:build unix

package wasi

import (
	"io/fs"
	"syscall"
)

// statIdentity is a file's link count, device and inode, where the
// platform's stat has them.
func statIdentity(fi fs.FileInfo) (nlink, dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Nlink), uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // the field types differ across platforms
}
