//go:build unix

package trace

import (
	"os"
	"syscall"
)

// openAppend opens path for appending, creating it, with one open(2),
// readable too (Close may copy the file back to its name, reclaim.go):
// os.OpenFile would also try to register the file with the runtime's
// poller (three fcntl calls and an epoll_ctl that a regular file always
// refuses), a cost every session pays once for its trace.
func openAppend(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_CREAT|syscall.O_RDWR|syscall.O_APPEND|syscall.O_CLOEXEC, 0o644)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
