package trend

import (
	"io"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/atomicfile"
)

// WriteFile writes the page (WriteHTML) to a temporary file beside path
// and renames it into place (atomicfile), so a half-written page is never
// published. It returns the page's size.
func WriteFile(path string, r *Report, title string) (int64, error) {
	size, err := atomicfile.Write(path, func(w io.Writer) error { return WriteHTML(w, r, title) })
	if err != nil {
		return 0, errcode.Wrap(errcode.IO, err, "write %s", path)
	}
	return size, nil
}
