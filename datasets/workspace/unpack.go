package workspace

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// maxLinkTarget bounds a zip link's target (its entry's content).
const maxLinkTarget = 4096

// writer puts checked entries into a base folder, through an os.Root on it
// (belt and braces: no entry is ever beneath a link, see tree.add).
type writer struct {
	root *os.Root
	t    *tree
}

func (w *writer) dir(name string) error {
	if name == "" {
		return nil
	}
	if err := w.t.add(entry{name: name, kind: kindDir, mode: 0o755}); err != nil {
		return err
	}
	return w.mkParents(name + "/x")
}

// mkParents creates the folders above name.
func (w *writer) mkParents(name string) error {
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			if err := w.root.Mkdir(name[:i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return ioErr(err, "create %s", name[:i])
			}
		}
	}
	return nil
}

// file writes a file of exactly size bytes from r. The base's files are
// read-only (0444, 0555 with an exec bit).
func (w *writer) file(name string, mode fs.FileMode, size int64, r io.Reader) error {
	if name == "" {
		return entryErr("/", "a file at the workspace's top")
	}
	if err := w.t.add(entry{name: name, kind: kindFile, mode: fileMode(mode), size: size}); err != nil {
		return err
	}
	if err := w.mkParents(name); err != nil {
		return err
	}
	f, err := w.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode(mode)&^0o222)
	if err != nil {
		return ioErr(err, "create %s", name)
	}
	n, err := io.Copy(f, io.LimitReader(r, size+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return ioErr(err, "unpack %s", name)
	case n != size:
		return errcode.New(errcode.IO, "workspace archive: entry %q holds %d bytes, its header says %d", name, n, size)
	}
	return nil
}

func (w *writer) link(name, target string) error {
	if name == "" {
		return entryErr("/", "a link at the workspace's top")
	}
	if err := checkLink(name, target); err != nil {
		return err
	}
	if err := w.t.add(entry{name: name, kind: kindLink, target: target}); err != nil {
		return err
	}
	if err := w.mkParents(name); err != nil {
		return err
	}
	if err := w.root.Symlink(target, name); err != nil {
		return ioErr(err, "create link %s", name)
	}
	return nil
}

// hardLink copies an earlier file of the archive (a tar hard link): the
// base holds no hard links, so no case can reach another's inode.
func (w *writer) hardLink(name, target string) error {
	tn, err := cleanName(target)
	if err != nil {
		return err
	}
	if k, ok := w.t.seen[tn]; !ok || k != kindFile || tn == "" {
		return entryErr(name, "a hard link to %q, which is not an earlier file of the archive", target)
	}
	src, err := w.root.Open(tn)
	if err != nil {
		return ioErr(err, "open %s", tn)
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return ioErr(err, "stat %s", tn)
	}
	return w.file(name, fi.Mode(), fi.Size(), src)
}

// unpackTar reads a tar stream (gzip-compressed when gz) into w.
func unpackTar(r io.Reader, gz bool, w *writer) error {
	if gz {
		zr, err := gzip.NewReader(bufio.NewReader(r))
		if err != nil {
			return formatErr(err)
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return formatErr(err)
		}
		name, err := cleanName(h.Name)
		if err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = w.dir(name)
		case tar.TypeReg: // tar.Reader turns the legacy TypeRegA into TypeReg (or TypeDir)
			err = w.file(name, fs.FileMode(h.Mode), h.Size, tr)
		case tar.TypeSymlink:
			err = w.link(name, h.Linkname)
		case tar.TypeLink:
			err = w.hardLink(name, h.Linkname)
		default:
			err = entryErr(h.Name, "a %s, not a file, folder or link", tarType(h.Typeflag))
		}
		if err != nil {
			return err
		}
	}
}

func tarType(t byte) string {
	switch t {
	case tar.TypeChar:
		return "character device"
	case tar.TypeBlock:
		return "block device"
	case tar.TypeFifo:
		return "FIFO"
	}
	return fmt.Sprintf("tar entry of type %q", t)
}

// unpackZip reads a zip archive into w.
func unpackZip(ra io.ReaderAt, size int64, w *writer) error {
	zr, err := zip.NewReader(ra, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return formatErr(err)
	}
	// The central directory's count, before anything is read.
	if len(zr.File) > w.t.count.lim.MaxEntries {
		return limitErr("more than %d entries", w.t.count.lim.MaxEntries)
	}
	for _, f := range zr.File {
		name, err := cleanName(f.Name)
		if err != nil {
			return err
		}
		m := f.Mode()
		switch {
		case m.IsDir():
			err = w.dir(name)
		case m&fs.ModeSymlink != 0:
			err = zipLink(f, name, w)
		case m.IsRegular():
			if f.UncompressedSize64 > uint64(w.t.count.lim.MaxEntryBytes) {
				return limitErr("%s: %d bytes, more than the %d a file may hold", name, f.UncompressedSize64, w.t.count.lim.MaxEntryBytes)
			}
			rc, oerr := f.Open()
			if oerr != nil {
				return formatErr(oerr)
			}
			err = w.file(name, m, int64(f.UncompressedSize64), rc)
			_ = rc.Close()
		default:
			err = entryErr(f.Name, "a %s, not a file, folder or link", m.Type())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func zipLink(f *zip.File, name string, w *writer) error {
	if f.UncompressedSize64 > maxLinkTarget {
		return entryErr(f.Name, "a link target of %d bytes", f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return formatErr(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxLinkTarget))
	if err != nil {
		return formatErr(err)
	}
	return w.link(name, string(b))
}

func formatErr(err error) error {
	return errcode.Wrap(errcode.IO, err, "workspace archive cannot be read").
		WithHint("a workspace archive is a .tar, .tar.gz (.tgz) or .zip file")
}

func ioErr(err error, format string, args ...any) error {
	return errcode.Wrap(errcode.IO, err, "workspace: "+format, args...)
}
