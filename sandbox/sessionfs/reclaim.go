package sessionfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Reclaim makes sure that name is still the file held, a descriptor
// murmur-eval opened at name and kept writing through (a session's
// trace.jsonl), when it is done with it. A tool may have renamed the file
// and left a link, a FIFO, a folder or a file of its own at the name;
// murmur-eval's writes then went to the renamed file, and the session
// would present the tool's entry as murmur-eval's.
//
// The name is checked with lstat beneath the root against held's fstat:
// the same device and inode, a regular file, one link. When it is, Reclaim
// returns nil and "". Otherwise whatever is at the name is removed as
// Create removes it (a folder with entries is moved aside), a fresh file
// is made there with O_CREATE|O_EXCL and held's whole content is copied
// into it; Reclaim returns that file, open for writing at its end (the
// caller closes it), and what it found at the name: "nothing", "a
// symlink", "a FIFO", "a folder", "another file" or "a hard link" (the
// held file with a second name). What the tool renamed stays where the
// tool put it. held must be open for reading.
func (r *Root) Reclaim(name string, held *os.File) (fresh *os.File, found string, err error) {
	n, err := CheckName(name)
	if err != nil {
		return nil, "", err
	}
	hfi, err := held.Stat()
	if err != nil {
		return nil, "", ioErr(err, "stat the open %s", filepath.ToSlash(n))
	}
	fi, err := r.r.Lstat(n)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		found = "nothing"
	case err != nil:
		return nil, "", ioErr(err, "check %s", filepath.ToSlash(n))
	case fi.Mode().IsRegular() && os.SameFile(fi, hfi) && ownedOnce(fi):
		return nil, "", nil
	case fi.Mode().IsRegular() && os.SameFile(fi, hfi):
		found = "a hard link"
	case fi.Mode().IsRegular():
		found = "another file"
	default:
		found = kind(fi.Mode())
	}
	if dir := filepath.Dir(n); dir != "." {
		if err := r.mkdirAll(dir, 0o755); err != nil {
			return nil, found, err
		}
	}
	f, err := r.createFresh(n, hfi.Mode().Perm())
	if err != nil {
		return nil, found, err
	}
	if _, err := io.Copy(f, io.NewSectionReader(held, 0, hfi.Size())); err != nil {
		_ = f.Close()
		return nil, found, ioErr(err, "restore %s", filepath.ToSlash(n))
	}
	return f, found, nil
}

// Unplant removes what a tool left at name, a log murmur-eval appends to
// by name without holding it open, when it is not a regular file with one
// link (a symlink, a FIFO, a folder, a hard link), and says what it was
// ("" when the name is such a file or is absent: nothing is done). The
// log's lines written before the tool replaced it are wherever the tool
// renamed the file; murmur-eval does not hold them, so the name is left
// empty rather than refilled.
func (r *Root) Unplant(name string) (found string, err error) {
	return r.unplant(name, func(fi fs.FileInfo) string {
		switch {
		case fi.Mode().IsRegular() && ownedOnce(fi):
			return ""
		case fi.Mode().IsRegular():
			return "a hard link or another's file"
		}
		return kind(fi.Mode())
	})
}

// UnplantFolder removes what a tool left at name, a folder murmur-eval
// writes its logs in (logs/, out/), when it is not a real folder (a link,
// even to a folder inside the root; a file; a FIFO), and says what it was
// ("" when it is a folder or absent).
func (r *Root) UnplantFolder(name string) (found string, err error) {
	return r.unplant(name, func(fi fs.FileInfo) string {
		if fi.IsDir() {
			return ""
		}
		return kind(fi.Mode())
	})
}

// unplant removes what is at name when planted, which says what it found
// there ("" for what may stay), and returns that; an absent name is left.
func (r *Root) unplant(name string, planted func(fs.FileInfo) string) (found string, err error) {
	n, err := CheckName(name)
	if err != nil {
		return "", err
	}
	fi, err := r.r.Lstat(n)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", ioErr(err, "check %s", filepath.ToSlash(n))
	}
	if found = planted(fi); found == "" {
		return "", nil
	}
	if err := r.clear(n); err != nil {
		return found, ioErr(err, "remove %s", filepath.ToSlash(n))
	}
	return found, nil
}
