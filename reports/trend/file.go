package trend

import (
	"bufio"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// WriteFile writes the page (WriteHTML) to a temporary file beside path
// and renames it into place, so a half-written page is never published. It
// returns the page's size.
func WriteFile(path string, r *Report, title string) (int64, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return 0, errcode.Wrap(errcode.IO, err, "write %s", path)
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	w := bufio.NewWriter(f)
	err = WriteHTML(w, r, title)
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
		return 0, errcode.Wrap(errcode.IO, err, "write %s", path)
	}
	return size, nil
}
