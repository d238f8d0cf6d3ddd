package cgroup

import (
	"errors"
	"os"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// sysOps is how the package changes a cgroup tree. The real ones are
// system calls; the tests replace them to play the kernel on a tree of
// plain files (making a folder's interface files, refusing a write with
// EBUSY, killing a pid) and to record what was written.
type sysOps struct {
	mkdir  func(path string) error
	rmdir  func(path string) error
	write  func(path, data string) error
	kill   func(pid int) error
	devOf  func(path string) (uint64, bool) // st_dev of path
	diskOf func(dev uint64) (string, bool)  // "MAJ:MIN" of the disk of a device
	pid    int                              // this process
}

func realSys() sysOps {
	return sysOps{
		mkdir:  func(path string) error { return unix.Mkdir(path, 0o755) },
		rmdir:  unix.Rmdir,
		write:  writeFile,
		kill:   func(pid int) error { return unix.Kill(pid, unix.SIGKILL) },
		devOf:  devOf,
		diskOf: diskOf,
		pid:    os.Getpid(),
	}
}

// writeFile writes data to an existing file in one write(2), as the
// kernel's interface files want it; it never creates the file (a missing
// interface file is ENOENT: the controller or feature is not there).
// Plain system calls, not os.File: a cgroup file cannot be polled, and
// os.OpenFile would try to register it with the poller first.
func writeFile(path, data string) error {
	fd, err := openRetry(path, unix.O_WRONLY|unix.O_TRUNC|unix.O_CLOEXEC)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	for {
		_, err = unix.Write(fd, []byte(data))
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// readFile reads a small interface file (at most 64 KiB: the files read
// here are a few lines; cgroup.procs of a fork bomb held to pids.max).
func readFile(path string) ([]byte, error) {
	fd, err := openRetry(path, unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, 512)
	for len(buf) < 64<<10 {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}

func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// rmdirRetry removes a group's folder, retrying while the kernel still
// counts an exiting process in it (EBUSY) until deadline. A folder already
// gone is not an error.
func (s *sysOps) rmdirRetry(path string, deadline time.Time) error {
	wait := 100 * time.Microsecond
	for {
		err := s.rmdir(path)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
			return &os.PathError{Op: "rmdir", Path: path, Err: err}
		}
		time.Sleep(wait)
		wait = min(2*wait, 10*time.Millisecond)
	}
}
