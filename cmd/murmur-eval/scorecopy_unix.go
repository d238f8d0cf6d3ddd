//go:build unix

package main

import (
	"io/fs"
	"os"
	"syscall"
)

// noFollow opens a file without following a link at its name.
const noFollow = syscall.O_NOFOLLOW

// keepOwner gives target fi's owner when murmur-eval runs as root (a
// session's files are the tool uid's or murmur-eval's); otherwise
// murmur-eval keeps them.
func keepOwner(target string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 {
		return nil
	}
	return os.Lchown(target, int(st.Uid), int(st.Gid))
}
