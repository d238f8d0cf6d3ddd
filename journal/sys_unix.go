//go:build unix

package journal

import (
	"errors"
	"os"
	"syscall"
)

// oSafeOpen opens a journal or lock file without following a symbolic
// link or blocking on a FIFO.
const oSafeOpen = syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// setBlocking puts f back in blocking mode: appends must not return EAGAIN.
func setBlocking(f *os.File) error { return syscall.SetNonblock(int(f.Fd()), false) }

// errHeld is tryLock's answer when another process holds the lock.
var errHeld = syscall.EWOULDBLOCK

// tryLock takes flock(2) on f, exclusive or shared, without waiting.
func tryLock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errHeld
	}
	return err
}
