package journal

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// oSafeOpen: Windows has no O_NOFOLLOW or O_NONBLOCK; the file's type is
// still checked after the open.
const oSafeOpen = 0

func setBlocking(*os.File) error { return nil }

// errHeld is tryLock's answer when another process holds the lock.
var errHeld = windows.ERROR_LOCK_VIOLATION

// tryLock takes a LockFileEx lock on f's first byte, exclusive or shared,
// without waiting; it is released when f is closed, like flock(2).
func tryLock(f *os.File, exclusive bool) error {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errHeld
	}
	return err
}
