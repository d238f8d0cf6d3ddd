package sessionfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// createTries bounds how often Create retries when something reappears at
// the name between its removal and the O_EXCL create (a tool racing it).
const createTries = 4

// MkdirAll makes the folder name and its parents beneath the root. A
// component that exists and is not a real folder (a symlink, even to a
// folder inside the root; a file; a FIFO) is removed and replaced by a
// fresh folder, so murmur-eval's own files land where people look for
// them and never behind a link.
func (r *Root) MkdirAll(name string, perm fs.FileMode) error {
	n, err := CheckName(name)
	if err != nil {
		return err
	}
	return r.mkdirAll(n, perm)
}

func (r *Root) mkdirAll(n string, perm fs.FileMode) error {
	parts := strings.Split(n, string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		fi, err := r.r.Lstat(p)
		switch {
		case err == nil && fi.IsDir():
			continue
		case err == nil:
			if err := r.clear(p); err != nil {
				return ioErr(err, "replace %s by a folder", filepath.ToSlash(p))
			}
		case !errors.Is(err, fs.ErrNotExist):
			return ioErr(err, "create folder %s", filepath.ToSlash(p))
		}
		if err := r.r.Mkdir(p, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return ioErr(err, "create folder %s", filepath.ToSlash(p))
		}
	}
	return nil
}

// Create makes the file name fresh and opens it for writing: its parents
// are made as MkdirAll makes them, whatever is at name is removed (a
// folder with entries is moved aside, see clear), and the file is created with
// O_CREATE|O_EXCL, which never follows a link. The caller closes it.
func (r *Root) Create(name string, perm fs.FileMode) (*os.File, error) {
	n, err := CheckName(name)
	if err != nil {
		return nil, err
	}
	if dir := filepath.Dir(n); dir != "." {
		if err := r.mkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	return r.createFresh(n, perm)
}

func (r *Root) createFresh(n string, perm fs.FileMode) (*os.File, error) {
	// The create comes first: a fresh name (the common case) costs no
	// lstat; whatever exists is cleared and the create tried again.
	var err error
	for range createTries {
		var f *os.File
		f, err = r.r.OpenFile(n, os.O_CREATE|os.O_EXCL|os.O_WRONLY|oNonblock, perm)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
		if rerr := r.clear(n); rerr != nil {
			return nil, ioErr(rerr, "replace %s", filepath.ToSlash(n))
		}
	}
	return nil, ioErr(err, "create %s", filepath.ToSlash(n))
}

// clear removes what is at n: a file, link, FIFO or empty folder is
// removed; a folder with entries is moved aside to n.displaced-<time> in
// the same folder, because it may be deeper than any removal by path can
// reach and os.RemoveAll holds a descriptor per level (a tool's 100,000
// nested folders would exhaust murmur-eval's descriptors).
func (r *Root) clear(n string) error {
	fi, err := r.r.Lstat(n)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	err = r.r.Remove(n)
	if err == nil || errors.Is(err, fs.ErrNotExist) || !fi.IsDir() {
		return err
	}
	return r.r.Rename(n, n+".displaced-"+strconv.FormatInt(time.Now().UnixNano(), 36))
}

// WriteFile writes data to name, created fresh as Create creates it: a
// link, FIFO or hard link planted at name is replaced, never written
// through.
func (r *Root) WriteFile(name string, data []byte, perm fs.FileMode) error {
	f, err := r.Create(name, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ioErr(err, "write %s", filepath.ToSlash(name))
	}
	return nil
}

// OpenAppend opens the log name for appending. The existing file is kept
// only when it is a regular file owned by murmur-eval's own uid with one
// link (checked on the name with lstat and again on the opened file);
// anything else at name is removed and the file created fresh, as Create
// does. The caller closes it.
func (r *Root) OpenAppend(name string, perm fs.FileMode) (*os.File, error) {
	n, err := CheckName(name)
	if err != nil {
		return nil, err
	}
	if dir := filepath.Dir(n); dir != "." {
		if err := r.mkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	if fi, err := r.r.Lstat(n); err == nil && reusable(fi) {
		// os.Root follows a link that appeared since the lstat, but only
		// inside the root; the same-file check below catches it.
		f, err := r.r.OpenFile(n, os.O_WRONLY|os.O_APPEND|oNonblock, 0)
		if err == nil {
			if ofi, err := f.Stat(); err == nil && reusable(ofi) && os.SameFile(fi, ofi) {
				return f, nil
			}
			_ = f.Close()
		}
	}
	return r.createFresh(n, perm)
}

// reusable reports whether an existing log may be appended to.
func reusable(fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && ownedOnce(fi)
}

// GiveFile chowns the regular file name to uid and gid when it is
// murmur-eval's own with one link, through the descriptor it checked, so
// a link or hard link swapped in cannot turn the chown on another file.
// Anything else at name is left alone (nil).
func (r *Root) GiveFile(name string, uid, gid int) error {
	f, err := r.OpenRead(name)
	if err != nil {
		if errcode.Is(err, errcode.IONotFound) || errcode.Is(err, errcode.SessionFile) {
			return nil
		}
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !reusable(fi) {
		return nil
	}
	if err := f.Chown(uid, gid); err != nil {
		return ioErr(err, "hand %s over", filepath.ToSlash(name))
	}
	return nil
}
