//go:build linux

package sessionfs

import (
	"errors"

	"golang.org/x/sys/unix"
)

// maxOpenDirs bounds the descriptors one Size holds, whatever the depth:
// past it the outermost open folders are closed, and reopened through ".."
// (checked by device and inode) on the way back up.
const maxOpenDirs = 32

// dirFlags open a folder by descriptor, never through a link.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK

// frame is one folder on the walk's stack.
type frame struct {
	fd       int // -1 while closed to stay within maxOpenDirs
	dev, ino uint64
	names    []string // entries not visited yet
}

// Size returns the bytes under dir: the apparent size (st_size) of every
// regular file and symlink, once per link, and of every folder the larger
// of st_size and st_blocks*512 (a deep chain of empty folders costs disk
// too). Nothing else counts. It walks by descriptor (openat and fstatat
// relative to the parent, O_NOFOLLOW, AT_SYMLINK_NOFOLLOW), so path depth
// does not matter and no link is followed; it holds at most maxOpenDirs
// descriptors. Entries that vanish while it walks are skipped. With stop
// > 0 it returns as soon as the sum passes stop. A folder that was moved
// while it walked (its ".." is no longer the folder it came from) ends the
// walk with ErrChanged and the bytes counted so far.
func Size(dir string, stop uint64) (uint64, error) {
	u, err := Measure(dir, stop, 0)
	return u.Bytes, err
}

type walk struct {
	stack []frame
	open  int    // descriptors held
	low   int    // frames below low hold no descriptor
	total uint64 // bytes counted
	stop  uint64
	// entries counts the names below the root (every kind, once per
	// name); past stopEntries > 0 the walk ends (usage_linux.go).
	entries, stopEntries uint64
	// onPush, when set, runs after every push (tests).
	onPush func()
	// onDir, when set, is called for every folder below the root before
	// the walk enters it (parent is its parent's descriptor); skip leaves
	// it out, uncounted.
	onDir func(parent int, name string, st *unix.Stat_t, depth int) (skip bool, err error)
}

func (w *walk) run() (uint64, error) {
	for len(w.stack) > 0 {
		if w.stop > 0 && w.total > w.stop || w.stopEntries > 0 && w.entries > w.stopEntries {
			return w.total, nil
		}
		top := &w.stack[len(w.stack)-1]
		if len(top.names) == 0 {
			if err := w.pop(); err != nil {
				return w.total, err
			}
			continue
		}
		name := top.names[len(top.names)-1]
		top.names = top.names[:len(top.names)-1]
		var st unix.Stat_t
		if err := unix.Fstatat(top.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return w.total, err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG, unix.S_IFLNK:
			w.total += uint64(max(st.Size, 0))
		case unix.S_IFDIR:
			if w.onDir != nil {
				skip, err := w.onDir(top.fd, name, &st, len(w.stack))
				if err != nil {
					return w.total, err
				}
				if skip {
					continue
				}
			}
			fd, err := unix.Openat(top.fd, name, dirFlags, 0)
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
				continue // gone or swapped for a non-folder since the fstatat
			}
			if err != nil {
				return w.total, err
			}
			if err := w.push(fd); err != nil {
				return w.total, err
			}
		}
	}
	return w.total, nil
}

// push reads the folder open at fd, counts it and makes it the top frame,
// closing the outermost descriptor when more than maxOpenDirs are held.
func (w *walk) push(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		_ = unix.Close(fd)
		return err
	}
	w.total += dirBytes(&st)
	names, err := readNames(fd)
	if err != nil {
		_ = unix.Close(fd)
		return err
	}
	w.entries += uint64(len(names))
	w.stack = append(w.stack, frame{fd: fd, dev: st.Dev, ino: st.Ino, names: names})
	w.open++
	for w.open > maxOpenDirs && w.low < len(w.stack)-1 {
		if f := &w.stack[w.low]; f.fd >= 0 {
			_ = unix.Close(f.fd)
			f.fd = -1
			w.open--
		}
		w.low++
	}
	if w.onPush != nil {
		w.onPush()
	}
	return nil
}

// pop drops the top frame, first reopening its parent through ".." when
// the parent's descriptor was closed.
func (w *walk) pop() error {
	child := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	defer func() { _ = unix.Close(child.fd); w.open-- }()
	if len(w.stack) == 0 {
		return nil
	}
	parent := &w.stack[len(w.stack)-1]
	if parent.fd >= 0 {
		return nil
	}
	fd, err := unix.Openat(child.fd, "..", dirFlags, 0)
	if err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Dev != parent.dev || st.Ino != parent.ino {
		_ = unix.Close(fd)
		return ErrChanged
	}
	parent.fd = fd
	w.open++
	w.low = len(w.stack) - 1
	return nil
}

func (w *walk) closeAll() {
	for _, f := range w.stack {
		if f.fd >= 0 {
			_ = unix.Close(f.fd)
		}
	}
	w.stack = nil
}

// dirBytes is what a folder itself counts.
func dirBytes(st *unix.Stat_t) uint64 {
	return uint64(max(st.Size, st.Blocks*512, 0))
}

// direntBuffer is the size of readNames' buffer, which lives in its frame:
// a session folder's entries fit in one getdents64 call, a large folder
// takes one call per ~100 entries. At 32 KiB the frame grew the calling
// goroutine's stack to 64 KiB (Go keeps a constant-size buffer that does
// not escape on the stack): every case's worker, at its first workdir
// check, then held that stack while it waited for its model, 30-45 MiB of
// peak RSS at 1,024 workers (BENCHMARKS.md, issue 19, session 11).
const direntBuffer = 4 << 10

// readNames lists the folder open at fd, without "." and "..".
func readNames(fd int) ([]string, error) {
	var names []string
	var buf [direntBuffer]byte
	for {
		n, err := unix.Getdents(fd, buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}
