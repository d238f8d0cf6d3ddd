package sessionfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxIntactEntries bounds the listing Intact makes for a pattern: a
// folder with more entries is not looked through (Intact says false).
const maxIntactEntries = 1024

// Intact is the fast path of Unplant and UnplantFolder at the end of a
// case, once no tool runs: it reports, with lstat on paths below dir (a
// folder murmur-eval made, which no tool can replace), whether each of
// folders is absent or a real folder and each of files is absent or a
// regular file murmur-eval owns with one link. The last element of a
// file name may be a path.Match pattern ("logs/hook-*.log"), matched in a
// listing of its folder. The folders are checked first, so the files'
// paths lead through real folders. false means only: look closer, with
// a Root.
func Intact(dir string, folders, files []string) bool {
	for _, f := range folders {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) || err == nil && !fi.IsDir() {
			return false
		}
	}
	for _, name := range files {
		if !strings.ContainsAny(path.Base(name), "*?[") {
			if !ownFileOrAbsent(filepath.Join(dir, filepath.FromSlash(name))) {
				return false
			}
			continue
		}
		folder := filepath.Join(dir, filepath.FromSlash(path.Dir(name)))
		names, ok := listFolder(folder)
		if !ok {
			return false
		}
		for _, n := range names {
			if m, _ := path.Match(path.Base(name), n); m && !ownFileOrAbsent(filepath.Join(folder, n)) {
				return false
			}
		}
	}
	return true
}

// ownFileOrAbsent reports whether p is absent or a regular file
// murmur-eval owns with one link.
func ownFileOrAbsent(p string) bool {
	fi, err := os.Lstat(p)
	return errors.Is(err, fs.ErrNotExist) || err == nil && reusable(fi)
}

// listFolder lists the names in folder, a real folder or absent (Intact
// checked it), without blocking; ok is false when it cannot tell.
func listFolder(folder string) (names []string, ok bool) {
	f, err := os.OpenFile(folder, os.O_RDONLY|oNonblock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return nil, false
	}
	names, err = f.Readdirnames(maxIntactEntries + 1)
	if err != nil && len(names) == 0 && !errors.Is(err, io.EOF) {
		return nil, false
	}
	return names, len(names) <= maxIntactEntries
}
