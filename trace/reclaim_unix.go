//go:build unix

package trace

import (
	"os"
	"syscall"
)

// stillNamed reports whether path (a name in a folder murmur-eval made,
// which no tool can replace) is f: the same device and inode, a regular
// file, one link. It is Close's fast path, two system calls and no
// allocation beyond the path's; anything else goes through
// sessionfs.Root.Reclaim, which checks again beneath the root.
func stillNamed(path string, f *os.File) bool {
	var held, named syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &held); err != nil {
		return false
	}
	if err := syscall.Lstat(path, &named); err != nil {
		return false
	}
	return named.Mode&syscall.S_IFMT == syscall.S_IFREG && named.Nlink == 1 &&
		named.Dev == held.Dev && named.Ino == held.Ino
}
