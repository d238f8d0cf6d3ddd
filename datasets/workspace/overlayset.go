package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// LayersDirName is the run folder's folder of overlay layers: each
// overlaid case's upper and work folders, harness-private (0700).
const LayersDirName = ".overlays"

// overlays is a Set's overlay state: whether this run can mount (probed
// once), the mounted cases, and the released sessions to materialise.
type overlays struct {
	token string // MountNSEnv's value: the private namespace we run in
	probe sync.Once
	err   error

	mu   sync.Mutex
	live map[string]liveClone // by session folder
	kept []liveClone          // released, to materialise at Close
}

type liveClone struct {
	base  *Base
	dir   string
	clone CloneResult
}

// WithOverlay lets the Set clone by overlay when it can mount: token is
// MountNSEnv's value, the mount namespace EnterPrivateMountNS entered (no
// overlay is mounted outside one, so that a killed run leaves none).
func (s *Set) WithOverlay(token string) *Set {
	s.ov.token = token
	return s
}

// LayersDir is where overlaid cases' upper and work folders go.
func (s *Set) LayersDir() string { return filepath.Join(s.runDir, LayersDirName) }

// OverlayErr says why this run cannot clone by overlay (nil: it can). It
// probes once: root, in the private mount namespace, and a small overlay
// mounted, written and unmounted in LayersDir (made afresh, a killed run's
// layers removed).
func (s *Set) OverlayErr() error {
	s.ov.probe.Do(func() {
		s.ov.err = overlayProbe(s.runDir, s.LayersDir(), s.ov.token)
	})
	return s.ov.err
}

// Clone clones b into the session folder dst, choosing the mechanism once
// per run: Auto is an overlay when OverlayErr is nil, else b.Clone's
// reflink-or-copy; a forced Overlay that cannot mount is an error. An
// overlaid session stays mounted until Release (or Close).
func (s *Set) Clone(ctx context.Context, b *Base, dst string, opts CloneOptions) (CloneResult, error) {
	switch opts.Mechanism {
	case Overlay:
		if err := s.OverlayErr(); err != nil {
			return CloneResult{}, errcode.Wrap(errcode.IO, err, "workspace: %s=overlay, but this run cannot mount overlays", CloneEnv).
				WithHint("run murmur-eval as root on Linux with overlayfs, or unset %s", CloneEnv)
		}
	case "", Auto:
		if s.ov.token != "" && s.OverlayErr() == nil {
			opts.Mechanism = Overlay
		}
	}
	if opts.Mechanism == Overlay {
		opts.Layers = s.LayersDir()
	}
	res, err := b.Clone(ctx, dst, opts)
	if err != nil || res.overlay == nil {
		return res, err
	}
	s.ov.mu.Lock()
	defer s.ov.mu.Unlock()
	if s.ov.live == nil {
		s.ov.live = map[string]liveClone{}
	}
	s.ov.live[dst] = liveClone{base: b, dir: dst, clone: res}
	return res, nil
}

// Release ends a case's overlay (Base.Release): call it once the case's
// diff, checks and expected files are done. The session folder then holds
// what the case wrote; if it is still there when the Set is closed (its
// session kept), the base's unchanged files are put back then.
func (s *Set) Release(dst string, res CloneResult) error {
	if res.overlay == nil {
		return nil
	}
	s.ov.mu.Lock()
	lc, ok := s.ov.live[dst]
	delete(s.ov.live, dst)
	s.ov.mu.Unlock()
	if !ok {
		return nil
	}
	if err := lc.base.Release(res); err != nil {
		s.ov.mu.Lock()
		s.ov.live[dst] = lc
		s.ov.mu.Unlock()
		return err
	}
	s.ov.mu.Lock()
	s.ov.kept = append(s.ov.kept, lc)
	s.ov.mu.Unlock()
	return nil
}

// Close ends the run's overlays: the sessions still mounted are released,
// every released session folder still present (kept) is materialised
// (Base.Materialise), a few at a time, and the layers folder is removed.
func (s *Set) Close() error {
	s.ov.mu.Lock()
	live := s.ov.live
	s.ov.live = nil
	s.ov.mu.Unlock()
	var errs []error
	for dst, lc := range live {
		if err := lc.base.Release(lc.clone); err != nil {
			errs = append(errs, err)
			continue
		}
		s.ov.mu.Lock()
		s.ov.kept = append(s.ov.kept, liveClone{base: lc.base, dir: dst})
		s.ov.mu.Unlock()
	}
	s.ov.mu.Lock()
	kept := s.ov.kept
	s.ov.kept = nil
	s.ov.mu.Unlock()
	var g errgroup.Group
	g.SetLimit(max(2, runtime.GOMAXPROCS(0)))
	for _, lc := range kept {
		g.Go(func() error {
			if _, err := os.Lstat(lc.dir); err != nil {
				return nil // removed: --keep-sessions did not keep it
			}
			return lc.base.Materialise(context.Background(), lc.dir)
		})
	}
	errs = append(errs, g.Wait())
	if err := os.RemoveAll(s.LayersDir()); err != nil {
		errs = append(errs, ioErr(err, "remove %s", s.LayersDir()))
	}
	return errors.Join(errs...)
}
