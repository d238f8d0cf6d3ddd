package wasi

import (
	"errors"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"strings"
	"syscall"
)

// descriptor is a wasi:filesystem descriptor: a path inside the preopened
// os.Root ("." is the preopen itself) and, for files, the open file. Every
// lookup goes through os.Root, which refuses ".." past the root and
// symlinks that resolve outside it, so a guest cannot leave the preopen.
type descriptor struct {
	root  *os.Root
	path  string
	dir   bool
	f     *os.File
	flags uint32
}

func (d *descriptor) Close() {
	if d.f != nil {
		_ = d.f.Close()
	}
}

// dirStream is a wasi:filesystem directory-entry-stream.
type dirStream struct {
	entries []fs.DirEntry
}

// wasi:filesystem error-code cases this host reports.
const (
	ecAccess        = 0
	ecBadDescriptor = 3
	ecExist         = 7
	ecInvalid       = 12
	ecIO            = 13
	ecIsDirectory   = 14
	ecLoop          = 15
	ecNameTooLong   = 18
	ecNoEntry       = 20
	ecNotDirectory  = 24
	ecNotEmpty      = 25
	ecUnsupported   = 27
	ecNotPermitted  = 31
	ecReadOnly      = 33
)

// errorCode maps a host error to a wasi:filesystem error-code.
func errorCode(err error) byte {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ecNoEntry
	case errors.Is(err, fs.ErrExist):
		return ecExist
	case errors.Is(err, fs.ErrPermission):
		return ecAccess
	case errors.As(err, &errno):
		switch errno {
		case syscall.ENOTDIR:
			return ecNotDirectory
		case syscall.EISDIR:
			return ecIsDirectory
		case syscall.ENOTEMPTY:
			return ecNotEmpty
		case syscall.ELOOP:
			return ecLoop
		case syscall.ENAMETOOLONG:
			return ecNameTooLong
		case syscall.EROFS:
			return ecReadOnly
		case syscall.EINVAL:
			return ecInvalid
		}
	case strings.Contains(err.Error(), "escapes from parent"), strings.Contains(err.Error(), "path escapes"):
		return ecNotPermitted
	}
	return ecIO
}

// resolve joins a guest path to d's path. Absolute paths are refused (the
// guest's only root is the preopen "."); ".." is left to os.Root.
func (d *descriptor) resolve(p string) (string, byte, bool) {
	if !d.dir {
		return "", ecNotDirectory, false
	}
	if strings.HasPrefix(p, "/") {
		return "", ecNotPermitted, false
	}
	if strings.ContainsRune(p, 0) {
		return "", ecInvalid, false
	}
	return path.Join(d.path, p), 0, true
}

// Descriptor flags and open flags of wasi:filesystem/types.
const (
	dfRead      = 1
	dfWrite     = 2
	dfMutateDir = 32

	ofCreate    = 1
	ofDirectory = 2
	ofExclusive = 4
	ofTruncate  = 8

	pfSymlinkFollow = 1
)

func (s *Host) openAt(d *descriptor, pathFlags uint32, p string, oflags, dflags uint32) (*descriptor, byte) {
	full, ec, ok := d.resolve(p)
	if !ok {
		return nil, ec
	}
	if pathFlags&pfSymlinkFollow == 0 {
		if fi, err := d.root.Lstat(full); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, ecLoop
		}
	}
	if (oflags&(ofCreate|ofTruncate) != 0 || dflags&dfWrite != 0) && d.flags&(dfWrite|dfMutateDir) == 0 {
		return nil, ecNotPermitted
	}
	fi, err := d.root.Stat(full)
	if err == nil && fi.IsDir() {
		if dflags&dfWrite != 0 || oflags&(ofExclusive) != 0 {
			return nil, map[bool]byte{true: ecExist, false: ecIsDirectory}[oflags&ofExclusive != 0]
		}
		return &descriptor{root: d.root, path: full, dir: true, flags: dflags | d.flags&dfMutateDir}, 0
	}
	if oflags&ofDirectory != 0 {
		if err != nil {
			return nil, errorCode(err)
		}
		return nil, ecNotDirectory
	}
	flag := os.O_RDONLY
	switch {
	case dflags&dfWrite != 0 && dflags&dfRead != 0:
		flag = os.O_RDWR
	case dflags&dfWrite != 0:
		flag = os.O_WRONLY
	}
	if oflags&ofCreate != 0 {
		flag |= os.O_CREATE
	}
	if oflags&ofExclusive != 0 {
		flag |= os.O_EXCL
	}
	if oflags&ofTruncate != 0 {
		flag |= os.O_TRUNC
	}
	f, err := d.root.OpenFile(full, flag, 0o644)
	if err != nil {
		return nil, errorCode(err)
	}
	return &descriptor{root: d.root, path: full, f: f, flags: dflags}, 0
}

func (d *descriptor) stat() (fs.FileInfo, error) {
	if d.f != nil {
		return d.f.Stat()
	}
	return d.root.Stat(d.path)
}

func descType(m fs.FileMode) byte {
	switch {
	case m.IsDir():
		return 3
	case m&fs.ModeSymlink != 0:
		return 5
	case m&fs.ModeNamedPipe != 0:
		return 4
	case m&fs.ModeSocket != 0:
		return 7
	case m&fs.ModeCharDevice != 0:
		return 2
	case m&fs.ModeDevice != 0:
		return 1
	case m.IsRegular():
		return 6
	}
	return 0
}

// putStat stores a descriptor-stat at b (align 8, 96 bytes). The three
// timestamps all carry the modification time.
func (s *Host) putStat(b uint32, fi fs.FileInfo) {
	s.U8(b, descType(fi.Mode()))
	s.U64(b+8, linkCount(fi))
	s.U64(b+16, uint64(max(fi.Size(), 0)))
	t := fi.ModTime()
	for _, off := range []uint32{24, 48, 72} {
		s.U8(b+off, 1)
		s.U64(b+off+8, uint64(t.Unix()))
		s.U32(b+off+16, uint32(t.Nanosecond()))
	}
}

func linkCount(fi fs.FileInfo) uint64 {
	if n, _, _, ok := statIdentity(fi); ok {
		return n
	}
	return 1
}

// metaHash is a stable hash of a file's identity (device and inode).
func metaHash(fi fs.FileInfo) (uint64, uint64) {
	h := fnv.New128a()
	if _, dev, ino, ok := statIdentity(fi); ok {
		var b [16]byte
		for i := 0; i < 8; i++ {
			b[i] = byte(dev >> (8 * i))
			b[8+i] = byte(ino >> (8 * i))
		}
		h.Write(b[:])
	} else {
		h.Write([]byte(fi.Name()))
	}
	sum := h.Sum(nil)
	var lo, hi uint64
	for i := 0; i < 8; i++ {
		lo |= uint64(sum[i]) << (8 * i)
		hi |= uint64(sum[8+i]) << (8 * i)
	}
	return lo, hi
}

// offsetReader reads f from an offset without moving f's own offset.
func offsetReader(f *os.File, off uint64) io.Reader {
	return io.NewSectionReader(f, int64(min(off, math.MaxInt64/2)), math.MaxInt64/2)
}

// offsetWriter writes f at an offset onwards.
type offsetWriter struct {
	f   *os.File
	off int64
}

func (w *offsetWriter) Write(p []byte) (int, error) {
	n, err := w.f.WriteAt(p, w.off)
	w.off += int64(n)
	return n, err
}
