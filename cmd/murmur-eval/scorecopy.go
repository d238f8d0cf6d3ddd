package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Bounds of a session folder copied for its check: a run's session is
// bounded by its workdir guard, and a copy past these is not made.
const (
	maxCopyBytes   = 8 << 30
	maxCopyEntries = 1_000_000
)

// copySession copies the session folder src into dst, a new folder, for
// a check to run in: folders, regular files (their permission bits, and
// their owner when murmur-eval runs as root, so the tool uid reads what
// it could) and symbolic links as links (never followed: the folder is
// the tools'). FIFOs, devices and sockets are left out. It returns the
// bytes and entries copied; past maxCopyBytes or maxCopyEntries it fails
// with E-EVL-092.
func copySession(src, dst string) (bytes, entries uint64, err error) {
	root, err := os.OpenRoot(src)
	if err != nil {
		return 0, 0, errcode.Wrap(errcode.IO, err, "open session folder %s", src)
	}
	defer root.Close()
	if err := os.Mkdir(dst, 0o755); err != nil {
		return 0, 0, errcode.Wrap(errcode.IO, err, "copy session folder %s", src)
	}
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		entries++
		if entries > maxCopyEntries || bytes > maxCopyBytes {
			return errcode.New(errcode.NotRescored, "not re-scored: its session folder %s is past %d entries or %d bytes, too large to copy for its check", src, maxCopyEntries, maxCopyBytes)
		}
		target := filepath.Join(dst, filepath.FromSlash(name))
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case name == ".":
			return keepOwner(target, fi)
		case d.IsDir():
			if err := os.Mkdir(target, 0o755); err != nil {
				return err
			}
			return keepOwner(target, fi)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := root.Readlink(name)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, target); err != nil {
				return err
			}
			return keepOwner(target, fi)
		case d.Type().IsRegular():
			n, err := copyFile(root, name, target, fi)
			bytes += uint64(n)
			return err
		}
		return nil
	})
	if err != nil && errcode.Code(err) == "" {
		err = errcode.Wrap(errcode.IO, err, "copy session folder %s", src)
	}
	return bytes, entries, err
}

// copyFile copies the regular file name of root to target.
func copyFile(root *os.Root, name, target string, fi fs.FileInfo) (int64, error) {
	in, err := root.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if st, err := in.Stat(); err != nil || !st.Mode().IsRegular() {
		return 0, errors.Join(err, fmt.Errorf("%s is no longer a regular file", name))
	}
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, maxCopyBytes+1))
	if err := errors.Join(err, out.Close()); err != nil {
		return n, err
	}
	return n, keepOwner(target, fi)
}
