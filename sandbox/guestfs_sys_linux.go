package sandbox

import (
	"syscall"
	"unsafe"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"golang.org/x/sys/unix"
)

const oRsync = syscall.O_RSYNC

// datasyncFD is fdatasync(2).
func datasyncFD(fd int) error { return unix.Fdatasync(fd) }

// futimensFD sets fd's times with futimens(2) (utimensat(fd, NULL, ts, 0));
// experimentalsys.UTIME_OMIT leaves a time as it is.
func futimensFD(fd int, atim, mtim int64) error {
	ts := [2]unix.Timespec{timespec(atim), timespec(mtim)}
	_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func timespec(ns int64) unix.Timespec {
	if ns == experimentalsys.UTIME_OMIT {
		return unix.Timespec{Nsec: unix.UTIME_OMIT}
	}
	return unix.NsecToTimespec(ns)
}
