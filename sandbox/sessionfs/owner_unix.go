//go:build unix

package sessionfs

import (
	"io/fs"
	"os"
	"syscall"
)

// oNonblock makes opening a FIFO return at once.
const oNonblock = syscall.O_NONBLOCK

// ownedOnce reports whether fi is owned by this process's uid and has one
// link: a hard link the tool made to another file fails it.
func ownedOnce(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid() && st.Nlink == 1
}
