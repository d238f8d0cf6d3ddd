//go:build !linux

package sessionfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Size returns the bytes under dir: the size of every regular file and
// symlink, once per link, and of every folder. It walks through an os.Root
// and never follows a link. Unlike the Linux walk (size_linux.go) it goes
// through paths, so a tree deeper than the OS's path limit may be counted
// short there. With stop > 0 it returns as soon as the sum passes stop.
func Size(dir string, stop uint64) (uint64, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return 0, fmt.Errorf("measure %s: %w", dir, err)
	}
	defer r.Close()
	var total uint64
	errStop := errors.New("stop")
	err = fs.WalkDir(r.FS(), ".", func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		t := d.Type()
		if t.IsRegular() || t.IsDir() || t&fs.ModeSymlink != 0 {
			if info, err := d.Info(); err == nil {
				total += uint64(max(info.Size(), 0))
			}
		}
		if stop > 0 && total > stop {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return total, fmt.Errorf("measure %s: %w", dir, err)
	}
	return total, nil
}
