package sandbox

import (
	"io/fs"
	"syscall"
)

// On Windows the report tools build, and a WASM guest's files work for
// open, read, write, seek, stat and listing; the calls below that need a
// POSIX descriptor answer ENOSYS (see docs/architecture.md, portability).
const (
	oDirectory = 0
	oDsync     = 0
	oRsync     = 0
	oNonblock  = 0
)

func setAppendFD(int, bool) error              { return syscall.ENOSYS }
func pwriteFD(int, []byte, int64) (int, error) { return 0, syscall.ENOSYS }
func datasyncFD(int) error                     { return syscall.ENOSYS }
func futimensFD(int, int64, int64) error       { return syscall.ENOSYS }
func inodeOf(fs.FileInfo) uint64               { return 0 }
func linkCount(fs.FileInfo) uint64             { return 0 }
