package sessionfs

import (
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writeFast writes data to the fresh file n beneath dir in one openat2
// call when nothing stands in the way: O_CREAT|O_EXCL makes the file new
// (never an existing file, link, FIFO or hard link), and RESOLVE_BENEATH
// with RESOLVE_NO_SYMLINKS refuses every link in n's parents, even one
// that resolves inside the folder, so the file lands exactly where
// WriteFile's slow path would put it. done is false, with nothing
// written, whenever the kernel refuses (an existing name, a missing or
// linked parent, a kernel or filter without openat2): WriteFile then
// takes the slow path, which removes, replaces and reports as before.
// This is the common case of every session file murmur-eval writes
// (MURMUR.md, out/result.txt, eval.jsonl), at 3 system calls where the
// slow path needs 7 to 13. The whole path is tried first (no link in dir
// either, as is usual: one call); when dir itself is reached through a
// link (ELOOP), dir is opened on its own and n resolved beneath it.
func writeFast(dir, n string, data []byte, perm fs.FileMode) (done bool, err error) {
	how := &unix.OpenHow{
		Flags:   unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Mode:    uint64(perm.Perm()),
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, filepath.Join(dir, n), how)
	if err == unix.ELOOP {
		fd, err = openBeneath(dir, n, how)
	}
	if err != nil {
		return false, nil
	}
	err = writeAll(fd, data)
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return true, ioErr(&fs.PathError{Op: "write", Path: filepath.Join(dir, n), Err: err}, "write %s", filepath.ToSlash(n))
	}
	return true, nil
}

// openBeneath opens n beneath the folder dir (which may be reached through
// a link) with how, adding RESOLVE_BENEATH.
func openBeneath(dir, n string, how *unix.OpenHow) (int, error) {
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	beneath := *how
	beneath.Resolve |= unix.RESOLVE_BENEATH
	fd, err := unix.Openat2(dfd, n, &beneath)
	_ = unix.Close(dfd)
	return fd, err
}

// writeAll writes data to fd, retrying short writes and interruptions.
func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}
