package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// LockFile is the name of a run folder's lock file. The process that runs
// or resumes the run holds an exclusive flock on it for its whole life;
// the file holds that process's pid, for the message another process
// prints when it is refused.
const LockFile = "run.lock"

// Lock is a held run-folder lock. The kernel releases it when the process
// exits, however it exits; Unlock releases it earlier.
type Lock struct {
	f *os.File
}

// Acquire takes the exclusive lock of the run folder dir without waiting.
// A folder another process holds is refused at once with
// errcode.RunFolderLocked naming that process. The lock file is opened
// without following a symlink, without blocking, and must be a regular
// file: a run folder from elsewhere cannot point the lock at another file.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := openLockFile(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f, true); err != nil {
		holder := readHolder(f)
		_ = f.Close()
		if errors.Is(err, errHeld) {
			return nil, lockedErr(dir, holder)
		}
		return nil, errcode.Wrap(errcode.IO, err, "lock run folder %s", dir)
	}
	// The holder writes its pid; a reader that lost the race may see the
	// file empty for a moment, and then names no pid.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. The file stays: removing it would let a
// process that opened it before the removal lock a file nobody else sees.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the last descriptor releases the flock
	l.f = nil
	return err
}

// Share takes a shared lock of the run folder dir without waiting, for a
// reader such as merge: a folder whose run or resume is still writing its
// journal is refused with errcode.RunFolderLocked, and while the shared
// lock is held no run or resume can start on it. A folder without a lock
// file (written before locks existed) is read unlocked: Share never
// creates a file in a folder it only reads.
func Share(dir string) (*Lock, error) {
	f, err := openLockFile(filepath.Join(dir, LockFile), os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return &Lock{}, nil
	}
	if err != nil {
		return nil, err
	}
	if err := tryLock(f, false); err != nil {
		holder := readHolder(f)
		_ = f.Close()
		if errors.Is(err, errHeld) {
			return nil, lockedErr(dir, holder)
		}
		return nil, errcode.Wrap(errcode.IO, err, "lock run folder %s", dir)
	}
	return &Lock{f: f}, nil
}

// openLockFile opens path with O_NOFOLLOW and O_NONBLOCK (a FIFO planted
// there does not hang the open) and refuses anything but a regular file.
func openLockFile(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|oSafeOpen, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, errcode.New(errcode.IO, "%s is a symbolic link; a run folder's lock file must be a regular file", path).
				WithHint("remove %s and try again", path)
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		return nil, errcode.Wrap(errcode.IO, err, "open lock file %s", path)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if err != nil {
		_ = f.Close()
		return nil, errcode.Wrap(errcode.IO, err, "lock file %s", path).WithHint("remove %s and try again", path)
	}
	return f, nil
}

// readHolder returns the pid the lock's holder wrote, or "" if none
// appears within 100 ms.
func readHolder(f *os.File) string {
	// The holder writes its pid right after taking the lock: a process
	// refused in between finds the file empty for a moment.
	for range 20 {
		if pid := readPID(f); pid != "" {
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	return ""
}

func readPID(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if n == 0 {
		return ""
	}
	s := strings.TrimSpace(string(b[:n]))
	if _, err := strconv.Atoi(s); err != nil {
		return ""
	}
	return s
}

func lockedErr(dir, pid string) error {
	who := "another murmur-eval process"
	if pid != "" {
		who += " (pid " + pid + ")"
	}
	return errcode.New(errcode.RunFolderLocked, "run folder %s is in use by %s", dir, who).
		WithHint("wait for that run or resume to finish, or stop it; a second run, --resume or merge on the same folder would corrupt its journal")
}
