//go:build !linux

package sessionfs

// Size returns the bytes under dir: the size of every regular file and
// symlink, once per link, and of every folder. It walks through an os.Root
// and never follows a link. Unlike the Linux walk (size_linux.go) it goes
// through paths, so a tree deeper than the OS's path limit may be counted
// short there. With stop > 0 it returns as soon as the sum passes stop.
func Size(dir string, stop uint64) (uint64, error) {
	u, err := Measure(dir, stop, 0)
	return u.Bytes, err
}
