//go:build !linux

package sessionfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Measure is Size that also counts entries (every name below dir), in the
// same walk; it stops once either passes its stop (0: none).
func Measure(dir string, stopBytes, stopEntries uint64) (Usage, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return Usage{}, fmt.Errorf("measure %s: %w", dir, err)
	}
	defer r.Close()
	var u Usage
	errStop := errors.New("stop")
	err = fs.WalkDir(r.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if name != "." {
			u.Entries++
		}
		t := d.Type()
		if t.IsRegular() || t.IsDir() || t&fs.ModeSymlink != 0 {
			if info, err := d.Info(); err == nil {
				u.Bytes += uint64(max(info.Size(), 0))
			}
		}
		if stopBytes > 0 && u.Bytes > stopBytes || stopEntries > 0 && u.Entries > stopEntries {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return u, fmt.Errorf("measure %s: %w", dir, err)
	}
	return u, nil
}
