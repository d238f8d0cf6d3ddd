package capsule

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// LockFile is the lock's file name, beside murmur.yaml in the project dir.
const LockFile = "murmur.lock"

// LockVersion is the only lock_version murmur reads and writes.
const LockVersion = 1

// Lock is a parsed murmur.lock (murmur-formats.md §2).
type Lock struct {
	Path        string // where it was read from
	LockVersion int
	Artifacts   []LockEntry
}

// LockEntry pins one registry artifact.
type LockEntry struct {
	Name            string
	ResolvedVersion string
	// SHA256 is the lowercase hex SHA-256 of the whole .mur.zip, stored under
	// `sha256.wasm` for every kind of artifact.
	SHA256 string
}

// LockPath returns the lock's path for a project directory.
func LockPath(projectDir string) string { return filepath.Join(projectDir, LockFile) }

// Entry returns the first entry for name.
func (l *Lock) Entry(name string) (LockEntry, bool) {
	for _, e := range l.Artifacts {
		if e.Name == name {
			return e, true
		}
	}
	return LockEntry{}, false
}

// ReadLock reads and validates the lock at path. A missing file is not an
// error: it returns (nil, nil), which murmur treats as "no lock yet".
func ReadLock(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "failed to read %s at %s", LockFile, path)
	}
	return ParseLock(path, data)
}

// ParseLock parses and validates lock bytes read from path (used in Where).
// Every problem is E-RUN-003 with murmur's "invalid murmur.lock: ..." message.
func ParseLock(path string, data []byte) (*Lock, error) {
	d := &decoder{file: path, code: errcode.RunLock, prefix: "invalid murmur.lock: YAML parse error: "}
	root, err := d.document(data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, d.shape(nil, "", "invalid type: unit value, expected struct MurmurLock")
	}
	m, err := d.mapping(root, "", "struct MurmurLock")
	if err != nil {
		return nil, err
	}
	var errs fieldErrs
	version := errs.uint(m, "lock_version", 32, "u32")
	items, err := m.seq("artifacts")
	errs.add(err)
	if errs.first == nil {
		for _, key := range []string{"lock_version", "artifacts"} {
			if !m.has(key) {
				return nil, d.shape(root, "", "missing field `%s`", key)
			}
		}
	}
	lock := &Lock{Path: path, LockVersion: int(version.val)}
	nodes := make([]*yaml.Node, 0, len(items))
	for i, item := range items {
		if errs.first != nil {
			break
		}
		e, err := decodeLockEntry(d, item, i)
		errs.add(err)
		lock.Artifacts = append(lock.Artifacts, e)
		nodes = append(nodes, deref(item))
	}
	if errs.first != nil {
		return nil, errs.first
	}
	invalid := func(n *yaml.Node, format string, args ...any) error {
		return errcode.New(errcode.RunLock, "invalid murmur.lock: "+format, args...).At(d.where(n)).
			WithHint("delete %s and run `mur install` to regenerate it", LockFile)
	}
	if lock.LockVersion != LockVersion {
		return nil, invalid(version.node, "unsupported lock_version %d (expected %d)", version.val, LockVersion)
	}
	for i, e := range lock.Artifacts {
		switch {
		case strings.TrimSpace(e.Name) == "":
			return nil, invalid(nodes[i], "artifact entry has empty name")
		case strings.TrimSpace(e.ResolvedVersion) == "":
			return nil, invalid(nodes[i], "artifact '%s' has empty resolved_version", e.Name)
		case strings.TrimSpace(e.SHA256) == "":
			return nil, invalid(nodes[i], "artifact '%s' has empty sha256.wasm", e.Name)
		}
	}
	return lock, nil
}

// decodeLockEntry reads one artifacts[i] entry; all three fields are
// required keys, and a null value reads as empty so validation names it.
func decodeLockEntry(d *decoder, item *yaml.Node, i int) (LockEntry, error) {
	field := "artifacts[" + strconv.Itoa(i) + "]"
	m, err := d.mapping(item, field, "struct LockedArtifact")
	if err != nil {
		return LockEntry{}, err
	}
	var errs fieldErrs
	e := LockEntry{Name: errs.str(m, "name").text, ResolvedVersion: errs.str(m, "resolved_version").text}
	sha, err := m.child("sha256")
	errs.add(err)
	if sha != nil {
		e.SHA256 = errs.str(sha, "wasm").text
	}
	if errs.first != nil {
		return e, errs.first
	}
	for _, key := range []string{"name", "resolved_version", "sha256"} {
		if !m.has(key) {
			return e, d.shape(m.node, field, "missing field `%s`", key)
		}
	}
	if sha != nil && !sha.has("wasm") {
		return e, d.shape(sha.node, field+".sha256", "missing field `wasm`")
	}
	return e, nil
}
