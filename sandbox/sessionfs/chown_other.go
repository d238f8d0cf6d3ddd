//go:build !linux

package sessionfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
)

// ChownDirs gives dir and every folder below it to uid and gid, but the
// top-level folders named in skip. It walks through an os.Root, so no link
// leads it out of dir; unlike the Linux walk it goes by path.
func ChownDirs(dir string, uid, gid int, skip ...string) error {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	return fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path.Dir(p) == "." && slices.Contains(skip, p) {
			return fs.SkipDir
		}
		if err := r.Lchown(p, uid, gid); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}

// ChownLayerDirs is ChownDirs: overlays are Linux-only.
func ChownLayerDirs(dir, _ string, uid, gid int, skip ...string) error {
	return ChownDirs(dir, uid, gid, skip...)
}
