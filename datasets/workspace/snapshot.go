package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
)

// snapshot copies the folder src into w, entry by entry, as an archive
// would be: links are checked (never followed), anything but a file, a
// folder or a link is refused. Files are opened without following links
// and without blocking (a FIFO swapped in is refused, not waited on).
func snapshot(src string, w *writer) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return ioErr(err, "read %s", p)
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return ioErr(err, "read %s", p)
		}
		name, err := cleanName(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		switch t := d.Type(); {
		case t.IsDir():
			return w.dir(name)
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return ioErr(err, "read link %s", p)
			}
			return w.link(name, filepath.ToSlash(target))
		case t.IsRegular():
			return copyIn(p, name, w)
		default:
			return entryErr(name, "a %s, not a file, folder or link", t.Type())
		}
	})
}

func copyIn(p, name string, w *writer) error {
	f, err := os.OpenFile(p, os.O_RDONLY|oNoFollowNonblock, 0)
	if err != nil {
		return ioErr(err, "read %s", p)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ioErr(err, "read %s", p)
	}
	if !fi.Mode().IsRegular() {
		return entryErr(name, "a %s, not a file, folder or link", fi.Mode().Type())
	}
	return w.file(name, fi.Mode(), fi.Size(), f)
}
