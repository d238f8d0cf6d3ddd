//go:build unix && !linux

package sandbox

import "golang.org/x/sys/unix"

// Off Linux (macOS, the BSDs): O_RSYNC is not offered, fdatasync is a full
// fsync, and a guest cannot set times by descriptor (ENOSYS): the portable
// futimes(2) has no UTIME_OMIT.
const oRsync = 0

func datasyncFD(fd int) error { return unix.Fsync(fd) }

func futimensFD(int, int64, int64) error { return unix.ENOSYS }
