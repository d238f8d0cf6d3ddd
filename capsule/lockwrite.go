package capsule

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Validate applies murmur's lock rules (lock_version 1, no blank name,
// resolved_version or sha256.wasm), on read and before write. Problems are
// E-RUN-003.
func (l *Lock) Validate() error {
	invalid := func(format string, args ...any) error {
		return errcode.New(errcode.RunLock, "invalid murmur.lock: "+format, args...).At(l.Path)
	}
	if l.LockVersion != LockVersion {
		return invalid("unsupported lock_version %d (expected %d)", l.LockVersion, LockVersion)
	}
	for _, e := range l.Artifacts {
		switch {
		case strings.TrimSpace(e.Name) == "":
			return invalid("artifact entry has empty name")
		case strings.TrimSpace(e.ResolvedVersion) == "":
			return invalid("artifact '%s' has empty resolved_version", e.Name)
		case strings.TrimSpace(e.SHA256) == "":
			return invalid("artifact '%s' has empty sha256.wasm", e.Name)
		}
	}
	return nil
}

// Marshal returns the lock as murmur writes it (serde_yaml 0.9):
// lock_version, then one {name, resolved_version, sha256: {wasm}} per
// artifact, list items at the key's indent, strings quoted only where YAML
// would read them as something else (serdeYAMLString), so a lock written by
// either tool is the other's byte for byte.
func (l *Lock) Marshal() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "lock_version: %d\n", l.LockVersion)
	if len(l.Artifacts) == 0 {
		b.WriteString("artifacts: []\n")
		return []byte(b.String()), nil
	}
	b.WriteString("artifacts:\n")
	for _, e := range l.Artifacts {
		b.WriteString("- name: " + serdeYAMLString(e.Name) + "\n")
		b.WriteString("  resolved_version: " + serdeYAMLString(e.ResolvedVersion) + "\n")
		b.WriteString("  sha256:\n")
		b.WriteString("    wasm: " + serdeYAMLString(e.SHA256) + "\n")
	}
	return []byte(b.String()), nil
}

// WriteLock writes l to l.Path unless a lock is already there, and reports
// whether it wrote. Like murmur it validates first (E-RUN-003), creates the
// parent folder, writes .murmur.lock.<unix-nanos>.tmp beside the lock with
// O_EXCL and syncs it; the temporary file is then linked to the lock's name,
// which fails when a lock exists, so an existing lock is never replaced,
// even by a concurrent writer (where hard links are not supported it falls
// back to murmur's rename after checking). I/O failures are E-IO-003.
func WriteLock(l *Lock) (written bool, err error) {
	if err := l.Validate(); err != nil {
		return false, err
	}
	data, err := l.Marshal()
	if err != nil {
		return false, err
	}
	ioErr := func(err error) error {
		return errcode.Wrap(errcode.IO, err, "failed to write %s at %s", LockFile, l.Path)
	}
	dir := filepath.Dir(l.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, ioErr(err)
	}
	tmp, err := createLockTemp(dir)
	if err != nil {
		return false, ioErr(err)
	}
	defer os.Remove(tmp.Name()) // after a link, only the lock's own name remains
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, ioErr(err)
	}
	switch err := os.Link(tmp.Name(), l.Path); {
	case err == nil:
	case errors.Is(err, fs.ErrExist):
		return false, nil
	default:
		if _, serr := os.Lstat(l.Path); serr == nil {
			return false, nil
		}
		if err := os.Rename(tmp.Name(), l.Path); err != nil {
			return false, ioErr(err)
		}
	}
	syncDir(dir)
	return true, nil
}

func createLockTemp(dir string) (*os.File, error) {
	var err error
	for range 8 {
		name := filepath.Join(dir, fmt.Sprintf(".%s.%d.tmp", LockFile, time.Now().UnixNano()))
		var f *os.File
		if f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, err
}

// syncDir makes a new directory entry durable; best effort, as murmur does
// not sync the directory at all.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
