package sessionfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Root is a session folder opened for confined access.
type Root struct {
	r   *os.Root
	dir string
}

// Open opens the session folder dir. dir itself is trusted (murmur-eval
// made it, in a run folder the tool cannot write); everything below it is
// not.
func Open(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, ioErr(err, "open session folder %s", dir)
	}
	return &Root{r: r, dir: dir}, nil
}

// Close releases the folder's descriptor.
func (r *Root) Close() error { return r.r.Close() }

// Dir is the folder r was opened on.
func (r *Root) Dir() string { return r.dir }

// CheckName returns an errcode.SessionFile error unless name (slash- or
// OS-separated) is a non-empty local name: not absolute, no leading "..",
// no NUL, not "." itself. It returns the name in the OS's form.
func CheckName(name string) (string, error) {
	n := filepath.FromSlash(name)
	if name == "" || strings.ContainsRune(name, 0) || !filepath.IsLocal(n) || filepath.Clean(n) == "." {
		return "", errcode.New(errcode.SessionFile, "session file name %q: want a relative name inside the session folder", name)
	}
	return filepath.Clean(n), nil
}

// refused is the error for a name murmur-eval will not read or write.
func refused(name, format string, args ...any) error {
	return errcode.New(errcode.SessionFile, format, args...).At(filepath.ToSlash(name))
}

// ioErr maps an os error to errcode: a missing file is IONotFound (still
// wrapping fs.ErrNotExist), an escape os.Root refused is SessionFile,
// anything else IO.
func ioErr(err error, format string, args ...any) error {
	code := errcode.IO
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = errcode.IONotFound
	case errors.Is(err, fs.ErrPermission):
		code = errcode.IOPermission
	case isEscape(err):
		code = errcode.SessionFile
	}
	return errcode.Wrap(code, err, format, args...)
}

// isEscape reports os.Root's refusal of a path leaving the root (its error
// value is not exported).
func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes from parent")
}

// kind names a file mode for an error message.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// ReadFile opens dir, reads name (see Root.ReadFile) and closes dir.
func ReadFile(dir, name string, max int64) ([]byte, error) {
	r, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(name, max)
}

// WriteFile opens dir, writes name fresh (see Root.WriteFile) and closes
// dir.
func WriteFile(dir, name string, data []byte, perm fs.FileMode) error {
	n, err := CheckName(name)
	if err != nil {
		return err
	}
	if done, err := writeFast(dir, n, data, perm); done {
		return err
	}
	r, err := Open(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.WriteFile(name, data, perm)
}

// AppendFile opens dir, appends data to name (see Root.OpenAppend) and
// closes dir: for one log line.
func AppendFile(dir, name string, data []byte, perm fs.FileMode) error {
	r, err := Open(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := r.OpenAppend(name, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ioErr(err, "append to %s", filepath.ToSlash(name))
	}
	return nil
}
