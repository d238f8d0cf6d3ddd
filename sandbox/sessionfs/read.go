package sessionfs

import (
	"io"
	"io/fs"
	"os"
)

// OpenRead opens name for reading: beneath the root, following only links
// that stay inside it, without blocking (O_NONBLOCK), and only when the
// opened file is a regular file. A missing file is errcode.IONotFound
// (errors.Is fs.ErrNotExist holds); a FIFO, device, socket or folder is
// errcode.SessionFile. The caller closes the file and bounds what it reads.
func (r *Root) OpenRead(name string) (*os.File, error) {
	n, err := CheckName(name)
	if err != nil {
		return nil, err
	}
	// Stat first, so a device node is not even opened; the fstat after the
	// open is what holds against a swap in between.
	if fi, err := r.r.Stat(n); err != nil {
		return nil, ioErr(err, "read %s", name)
	} else if !fi.Mode().IsRegular() {
		return nil, refused(name, "is %s, not a regular file", kind(fi.Mode()))
	}
	f, err := r.r.OpenFile(n, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, ioErr(err, "read %s", name)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, ioErr(err, "read %s", name)
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, refused(name, "is %s, not a regular file", kind(fi.Mode()))
	}
	return f, nil
}

// ReadFile reads the regular file name (see OpenRead), at most limit bytes:
// a longer file is errcode.SessionFile. It reads up to limit+1 bytes and
// never allocates more than that, whatever size the file claims.
func (r *Root) ReadFile(name string, limit int64) ([]byte, error) {
	if limit < 0 {
		limit = 0
	}
	f, err := r.OpenRead(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hint := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		hint = fi.Size() + 1
	}
	buf := make([]byte, 0, min(hint, limit+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, refused(name, "is larger than %d bytes", limit)
			}
			// Grow, but never past max+1.
			next := min(int64(max(2*cap(buf), 512)), limit+1)
			nb := make([]byte, len(buf), next)
			copy(nb, buf)
			buf = nb
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, ioErr(err, "read %s", name)
		}
	}
	if int64(len(buf)) > limit {
		return nil, refused(name, "is larger than %d bytes", limit)
	}
	return buf, nil
}

// ReadDir lists the folder name ("." is the root) in directory order, at
// most limit entries (limit <= 0: all). Like OpenRead it stays beneath the
// root and opens without blocking; anything but a folder is
// errcode.SessionFile. The entries' types are lstat's: a link is a link.
func (r *Root) ReadDir(name string, limit int) ([]fs.DirEntry, error) {
	n := "."
	if name != "." {
		var err error
		if n, err = CheckName(name); err != nil {
			return nil, err
		}
	}
	if fi, err := r.r.Stat(n); err != nil {
		return nil, ioErr(err, "list %s", name)
	} else if !fi.IsDir() {
		return nil, refused(name, "is %s, not a folder", kind(fi.Mode()))
	}
	f, err := r.r.OpenFile(n, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, ioErr(err, "list %s", name)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return nil, refused(name, "is not a folder")
	}
	des, err := f.ReadDir(limit)
	if err != nil && !(limit > 0 && err == io.EOF) {
		return nil, ioErr(err, "list %s", name)
	}
	return des, nil
}

// Readlink returns the target of the link name, beneath the root (the
// link itself is read, never followed; a parent that is a link out of the
// root is refused).
func (r *Root) Readlink(name string) (string, error) {
	n, err := CheckName(name)
	if err != nil {
		return "", err
	}
	t, err := r.r.Readlink(n)
	if err != nil {
		return "", ioErr(err, "read link %s", name)
	}
	return t, nil
}
