package datasets

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// A task file is read from the dataset's folder, never through a link out
// of it: a dataset is input from elsewhere, and a task_path of
// ../../etc/shadow, an absolute path, or a symlink inside the folder to a
// host file would otherwise copy that file into every session's task.md
// (issue 13). Files outside the folder are read only with
// Options.AllowTaskOutside.

// outsideError is a task file that resolves outside the dataset's folder.
type outsideError struct{ resolved string }

func (e *outsideError) Error() string {
	return fmt.Sprintf("resolves to %s, outside the dataset's folder", e.resolved)
}

// taskFiles checks task files against one dataset folder.
type taskFiles struct {
	root         string // the dataset's folder, symlinks resolved
	allowOutside bool
}

// check resolves path (symlinks included) and returns where ReadTask reads
// it: rel beneath root, or root "" to read path itself (allowed outside).
// A file outside root is an *outsideError unless allowed; anything but a
// regular file (a folder, a FIFO that would block the read, a device) is
// refused.
func (t taskFiles) check(path string) (root, rel string, err error) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", "", err
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", "", err
	}
	if !fi.Mode().IsRegular() {
		return "", "", notRegular(fi.Mode())
	}
	if rel, err := filepath.Rel(t.root, resolved); err == nil && filepath.IsLocal(rel) {
		return t.root, rel, nil
	}
	if t.allowOutside {
		return "", "", nil
	}
	return "", "", &outsideError{resolved: resolved}
}

func notRegular(m os.FileMode) error {
	if m.IsDir() {
		return errors.New("is a directory, not a file")
	}
	return fmt.Errorf("is not a regular file (mode %s)", m.Type())
}

// readTaskFile reads a checked task file: beneath root through os.Root (a
// link swapped in since the load cannot lead out), or path itself when
// root is "". The open never blocks (O_NONBLOCK: a FIFO put there since)
// and only a regular file is read.
func readTaskFile(root, rel, path string) ([]byte, error) {
	const flags = os.O_RDONLY | syscall.O_NONBLOCK
	var f *os.File
	var err error
	if root != "" {
		r, rerr := os.OpenRoot(root)
		if rerr != nil {
			return nil, rerr
		}
		defer r.Close()
		f, err = r.OpenFile(rel, flags, 0)
	} else {
		f, err = os.OpenFile(path, flags, 0)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode())
	}
	return io.ReadAll(f)
}
