// Package atomicfile writes a file whole or not at all: into a temporary
// file beside it, renamed into place once complete, so a reader never
// sees a half-written page or report.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write calls fill with a buffered writer on a temporary file beside path
// and, when it succeeds, makes the file 0644 and renames it to path. It
// returns the file's size. On any failure path is left as it was and the
// temporary file is removed; the error is the os or fill error, for the
// caller to code.
func Write(path string, fill func(w io.Writer) error) (int64, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	w := bufio.NewWriterSize(f, 64<<10)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	var size int64
	if err == nil {
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil {
			size = fi.Size()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return 0, err
	}
	return size, nil
}
