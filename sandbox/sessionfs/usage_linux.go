//go:build linux

package sessionfs

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Measure is Size that also counts entries, in the same walk: the workdir
// guard bounds both. It returns as soon as Bytes passes stopBytes or
// Entries passes stopEntries (either 0: no stop), with what it counted;
// errors are Size's, ErrChanged included.
func Measure(dir string, stopBytes, stopEntries uint64) (Usage, error) {
	fd, err := unix.Open(dir, dirFlags, 0)
	if err != nil {
		return Usage{}, fmt.Errorf("measure %s: %w", dir, err)
	}
	w := &walk{stop: stopBytes, stopEntries: stopEntries}
	defer w.closeAll()
	if err := w.push(fd); err != nil {
		return Usage{}, fmt.Errorf("measure %s: %w", dir, err)
	}
	n, err := w.run()
	u := Usage{Bytes: n, Entries: w.entries}
	if err != nil {
		return u, fmt.Errorf("measure %s: %w", dir, err)
	}
	return u, nil
}
