//go:build darwin || linux || openbsd

package trace

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// maxIovecs is the most buffers one writev takes (IOV_MAX on these
// systems).
const maxIovecs = 1024

// writeLines writes every line to f with writev, taking up where a short
// write stopped.
func writeLines(f *os.File, lines [][]byte) error {
	fd := int(f.Fd())
	for len(lines) > 0 {
		batch := lines[:min(len(lines), maxIovecs)]
		n, err := unix.Writev(fd, batch)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: f.Name(), Err: err}
		}
		if n == 0 {
			return &os.PathError{Op: "write", Path: f.Name(), Err: io.ErrShortWrite}
		}
		for n > 0 && len(lines) > 0 {
			if n < len(lines[0]) {
				lines[0] = lines[0][n:]
				break
			}
			n -= len(lines[0])
			lines = lines[1:]
		}
	}
	return nil
}
