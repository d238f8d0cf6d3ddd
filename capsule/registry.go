package capsule

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Registry is an ordered list of local artifact stores (§4). Resolve tries
// them in order. A Registry only reads the filesystem and is safe for
// concurrent use.
type Registry struct {
	Stores []string // store roots, first wins
	// MaxEntryBytes is zip_guard's per-entry ceiling for archives from
	// these stores, passed on in every Resolved; <= 0 means
	// DefaultMaxEntryBytes. See MaxEntryBytes.
	MaxEntryBytes int64
}

// ProjectStore returns the project store root: <project dir>/.murmur/artifacts.
func ProjectStore(projectDir string) string {
	return filepath.Join(projectDir, ".murmur", "artifacts")
}

// GlobalStore returns the global store root: <home>/.murmur/artifacts.
func GlobalStore(home string) string {
	return filepath.Join(home, ".murmur", "artifacts")
}

// NewRegistry returns murmur's run-time registry: the project store, then the
// global store under home. An empty home means no global store.
func NewRegistry(projectDir, home string) *Registry {
	r := &Registry{Stores: []string{ProjectStore(projectDir)}}
	if home != "" {
		r.Stores = append(r.Stores, GlobalStore(home))
	}
	return r
}

// Resolved is an artifact found in a store. Nothing has been hashed yet;
// callers check the bytes with Verify.
type Resolved struct {
	Name          string
	Version       string
	Store         string // root of the store it came from
	ZipPath       string
	SidecarSHA256 string // the .sha256 sidecar's content, trimmed
	MaxEntryBytes int64  // the Registry's; pass it to ReadArchive
}

// CurrentPlatform returns murmur's platform string for this host:
// linux-x86_64, linux-aarch64, darwin-x86_64, darwin-aarch64, else unknown.
func CurrentPlatform() string { return platformFor(runtime.GOOS, runtime.GOARCH) }

func platformFor(goos, goarch string) string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[goarch]
	if arch == "" || (goos != "linux" && goos != "darwin") {
		return "unknown"
	}
	return goos + "-" + arch
}

// Resolve finds name at exactly version (no ranges, no "latest"). In each
// store, the platform variant <name>-<version>-<platform>.mur.zip and its
// .sha256 are used when both exist, else the generic pair. Only a not-found
// falls through to the next store; any other error is final.
//
// Errors: E-REG-001 when no store has it, E-IO-003 for an unsafe name or
// version, an empty sidecar or an I/O failure.
func (r *Registry) Resolve(name, version, platform string) (*Resolved, error) {
	if err := checkRef(name, version); err != nil {
		return nil, err
	}
	for _, store := range r.Stores {
		res, err := resolveIn(store, name, version, platform)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if res != nil {
			res.MaxEntryBytes = r.MaxEntryBytes
		}
		return res, err
	}
	return nil, notFound(name, version)
}

func notFound(name, version string) *errcode.Error {
	return errcode.New(errcode.RegistryNotFound, "artifact %s@%s not found", name, version).
		WithHint("run `mur install` (or `murmur-eval pack ARTIFACT_DIR --store <project>/.murmur/artifacts`) to put it in the project store")
}

// checkRef refuses names and versions that would leave the store directory.
func checkRef(name, version string) error {
	for _, s := range []string{name, version} {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, `/\`+"\x00") {
			return errcode.New(errcode.IO, "invalid artifact reference %s@%s: name and version must be plain path segments", name, version)
		}
	}
	return nil
}

// resolveIn looks in one store; it returns an error wrapping fs.ErrNotExist
// when the store does not have the artifact.
func resolveIn(store, name, version, platform string) (*Resolved, error) {
	dir := filepath.Join(store, name, version)
	base := name + "-" + version
	pairs := [][2]string{}
	if platform != "" {
		pairs = append(pairs, [2]string{base + "-" + platform + ".mur.zip", base + "-" + platform + ".sha256"})
	}
	pairs = append(pairs, [2]string{base + ".mur.zip", base + ".sha256"})
	for _, p := range pairs {
		zipPath, sidecar := filepath.Join(dir, p[0]), filepath.Join(dir, p[1])
		ok, err := bothExist(zipPath, sidecar)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		data, err := os.ReadFile(sidecar)
		if err != nil {
			return nil, errcode.Wrap(errcode.IO, err, "failed to read sha256 sidecar for %s@%s", name, version)
		}
		sum := strings.TrimSpace(string(data))
		if sum == "" {
			return nil, errcode.New(errcode.IO, "empty sha256 sidecar for %s@%s at %s", name, version, sidecar)
		}
		return &Resolved{Name: name, Version: version, Store: store, ZipPath: zipPath, SidecarSHA256: sum}, nil
	}
	return nil, fs.ErrNotExist
}

func bothExist(paths ...string) (bool, error) {
	for _, p := range paths {
		_, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return false, nil
		}
		if err != nil {
			return false, errcode.Wrap(errcode.IO, err, "failed to look up %s", p)
		}
	}
	return true, nil
}

// SHA256Hex returns the lowercase hex SHA-256 of b, the form sidecars and the
// lock use.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Verify checks an artifact's zip bytes the way murmur's staging does: their
// SHA-256 must equal the sidecar, and, when the artifact is locked (lockSHA
// != ""), the sidecar must equal the lock's hash. A mismatch is E-REG-002.
func Verify(name, version string, zipBytes []byte, sidecar, lockSHA string) error {
	if got := SHA256Hex(zipBytes); got != sidecar {
		return errcode.Wrap(errcode.RegistryIntegrity, fmt.Errorf("expected %s, got %s", sidecar, got),
			"artifact integrity check failed for %s@%s", name, version).
			WithHint("the stored .mur.zip does not match its .sha256 sidecar; publish or install the artifact again")
	}
	if lockSHA != "" && sidecar != lockSHA {
		return errcode.Wrap(errcode.RegistryIntegrity, fmt.Errorf("expected %s, got %s", lockSHA, sidecar),
			"artifact integrity check failed for %s@%s", name, version).
			WithHint("the registry's copy is not the one %s pins; install the pinned build or delete %s", LockFile, LockFile)
	}
	return nil
}
