//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

func ownerOf(fi fs.FileInfo) int { return int(fi.Sys().(*syscall.Stat_t).Uid) }
