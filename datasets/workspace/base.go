package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// DirName is the folder of the run folder that holds the bases.
const DirName = ".workspaces"

// Base is one workspace read into the run folder: the read-only original
// every case that names it starts from and is compared with.
type Base struct {
	Source string // the workspace as the dataset named it, resolved
	Kind   string // datasets.WorkspaceDir, ...Tar, ...TarGz, ...Zip
	Dir    string // <run>/.workspaces/<hash>
	// Bytes is what the base measures as the workdir guard measures a
	// session (sessionfs.Size): a copied case's workdir_max_bytes is raised
	// by it, so the limit counts what the case adds (an overlaid case's
	// guard measures its upper layer instead).
	Bytes uint64
	// Entries is every name below the base as the workdir guard counts a
	// session's (sessionfs.Measure): a copied case's --workdir-max-files
	// is raised by it.
	Entries uint64
	Files   int // regular files

	entries   []entry // sorted by name
	lim       Limits
	noReflink atomic.Bool

	// The base as an overlay's lower layer (prepareLower): made once, its
	// entries then owned by lowerUID.
	lowerOnce          sync.Once
	lowerErr           error
	lowerUID, lowerGID int
}

// Set reads each workspace of a run once, on the first case that names
// it. It is safe for concurrent use.
type Set struct {
	runDir string
	lim    Limits
	mu     sync.Mutex
	m      map[string]*slot
	ov     overlays
}

type slot struct {
	once sync.Once
	b    *Base
	err  error
}

// NewSet returns the Set of a run whose folder is runDir.
func NewSet(runDir string, lim Limits) *Set {
	return &Set{runDir: runDir, lim: lim, m: map[string]*slot{}}
}

// Base returns the base of the workspace source of the given kind, reading
// it into <run>/.workspaces/<hash of source> on first use (a base left
// there by an earlier run on this folder, as with --resume, is replaced).
// Every case that names source gets the same Base, or the same error.
func (s *Set) Base(ctx context.Context, source, kind string) (*Base, error) {
	s.mu.Lock()
	sl := s.m[source]
	if sl == nil {
		sl = &slot{}
		s.m[source] = sl
	}
	s.mu.Unlock()
	sl.once.Do(func() { sl.b, sl.err = Prepare(ctx, source, kind, s.baseDir(source), s.lim) })
	return sl.b, sl.err
}

func (s *Set) baseDir(source string) string {
	h := sha256.Sum256([]byte(source))
	return filepath.Join(s.runDir, DirName, hex.EncodeToString(h[:8]))
}

// Prepare reads the workspace source of the given kind into dir, which it
// replaces, checking every entry (see the package doc), and measures it.
func Prepare(ctx context.Context, source, kind, dir string, lim Limits) (*Base, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, ioErr(err, "clear %s", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, ioErr(err, "create %s", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, ioErr(err, "open %s", dir)
	}
	defer root.Close()
	w := &writer{root: root, t: newTree(lim)}
	err = read(source, kind, w)
	if err == nil {
		err = w.t.checkLinksResolve()
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, errcode.WrapKeep(errcode.IO, err, "workspace %s", source)
	}
	b := &Base{Source: source, Kind: kind, Dir: dir, entries: w.t.entries, lim: lim}
	slices.SortFunc(b.entries, func(a, c entry) int { return strings.Compare(a.name, c.name) })
	for _, e := range b.entries {
		if e.kind == kindFile {
			b.Files++
		}
	}
	u, err := sessionfs.Measure(dir, 0, 0)
	if err != nil {
		return nil, ioErr(err, "measure %s", dir)
	}
	b.Bytes, b.Entries = u.Bytes, u.Entries
	return b, nil
}

func read(source, kind string, w *writer) error {
	if kind == datasets.WorkspaceDir {
		return snapshot(source, w)
	}
	f, err := os.Open(source)
	if err != nil {
		return ioErr(err, "open")
	}
	defer f.Close()
	switch kind {
	case datasets.WorkspaceTar:
		return unpackTar(f, false, w)
	case datasets.WorkspaceTarGz:
		return unpackTar(f, true, w)
	case datasets.WorkspaceZip:
		fi, err := f.Stat()
		if err != nil {
			return ioErr(err, "stat")
		}
		return unpackZip(f, fi.Size(), w)
	}
	return errcode.New(errcode.Internal, "workspace kind %q", kind)
}
