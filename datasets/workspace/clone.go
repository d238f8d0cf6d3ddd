package workspace

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Mechanism is how Clone puts a base's files into a session.
type Mechanism string

// Mechanisms, fastest first. Overlay mounts the base under the session
// folder and creates no file; a Set chooses it for Auto when it can mount
// (Set.Clone). Base.Clone's Auto tries a reflink and falls back to a copy
// for the rest of the run when the file system has none.
const (
	Auto    Mechanism = "auto"
	Overlay Mechanism = "overlay"
	Reflink Mechanism = "reflink"
	Copy    Mechanism = "copy"
)

// CloneEnv forces a mechanism: auto (the default), overlay or reflink
// (fail where they are not available) or copy.
const CloneEnv = "MURMUR_EVAL_WORKSPACE_CLONE"

// ParseMechanism reads CloneEnv's value; "" is Auto.
func ParseMechanism(v string) (Mechanism, error) {
	switch m := Mechanism(v); m {
	case "":
		return Auto, nil
	case Auto, Overlay, Reflink, Copy:
		return m, nil
	}
	return "", errcode.New(errcode.Usage, "%s=%q: want auto, overlay, reflink or copy", CloneEnv, v)
}

// CloneOptions say how Clone works.
type CloneOptions struct {
	Mechanism Mechanism // "" is Auto
	// UID and GID own what Clone creates (the tool user, so that its
	// shell tools can rewrite the files in place); -1 keeps the evaluator's.
	UID, GID int
	// Workers copy files in parallel; 0 is 2×GOMAXPROCS, at least 4.
	Workers int
	// Layers is the harness-private folder an Overlay clone puts its upper
	// and work folders in (Set.Clone sets it: <run>/.overlays).
	Layers string
}

// CloneResult says what Clone did.
type CloneResult struct {
	Mechanism Mechanism // Overlay, Reflink or Copy: what the files were put there by
	Files     int
	Duration  time.Duration
	// overlay is the case's mount (Overlay): Diff reads its upper layer,
	// Release unmounts it.
	overlay *overlayMount
	// stamps are each cloned file's inode, ctime and size once made: Diff
	// skips reading a file the case has not touched since.
	stamps map[string]stamp
}

// UpperDir is the overlaid case's writable upper layer, a folder of the
// run's harness-private .overlays that no tool reaches: what the case
// added or changed, and nothing of the base it did not touch. It is ""
// for a copied or reflinked workspace.
func (r CloneResult) UpperDir() string {
	if r.overlay == nil {
		return ""
	}
	return r.overlay.upper()
}

// stamp identifies one state of a file: the kernel sets ctime on every
// change of content, mode or owner, and no tool can set it back.
type stamp struct {
	ino, size int64
	ctime     time.Time
}

// Clone populates dst, a fresh session folder no tool has run in yet, with
// the base's folders, files and links: folders first, then files in
// parallel (by reflink or copy, never a hard link), then links. With
// Overlay it mounts an overlay on dst instead (the base its read-only
// lower layer, opts.Layers holding the rest), which Release ends. Each file
// is created with O_EXCL|O_NOFOLLOW, mode 0644 (0755 with an exec bit),
// owned by opts.UID. The base is only read.
func (b *Base) Clone(ctx context.Context, dst string, opts CloneOptions) (CloneResult, error) {
	if opts.Mechanism == Overlay {
		return b.overlayClone(dst, opts)
	}
	start := time.Now()
	mech := opts.Mechanism
	if mech == "" {
		mech = Auto
	}
	if mech == Auto && b.noReflink.Load() {
		mech = Copy
	}
	var files []entry
	for _, e := range b.entries {
		switch e.kind {
		case kindDir:
			p := filepath.Join(dst, filepath.FromSlash(e.name))
			if err := os.Mkdir(p, 0o755); err != nil {
				return CloneResult{}, ioErr(err, "create %s", p)
			}
			if err := own(p, opts); err != nil {
				return CloneResult{}, err
			}
		case kindFile:
			files = append(files, e)
		}
	}
	used := Copy
	stamps := make([]stamp, len(files))
	first := 0
	if mech != Copy && len(files) > 0 {
		// The first file decides for the run: a reflink works for every
		// file of a file system, or for none.
		st, err := b.cloneFile(files[0], dst, Reflink, opts)
		switch {
		case err == nil:
			used, mech, first = Reflink, Reflink, 1
			stamps[0] = st
		case mech == Reflink || !errors.Is(err, errNoReflink):
			return CloneResult{}, err
		default:
			b.noReflink.Store(true)
			mech = Copy
		}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = max(4, 2*runtime.GOMAXPROCS(0))
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := first; i < len(files); i++ {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() (err error) {
			stamps[i], err = b.cloneFile(files[i], dst, mech, opts)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return CloneResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return CloneResult{}, err
	}
	if err := b.cloneLinks(dst, opts); err != nil {
		return CloneResult{}, err
	}
	res := CloneResult{Mechanism: used, Files: b.Files, Duration: time.Since(start), stamps: make(map[string]stamp, len(files))}
	// File systems keep ctime at the kernel's clock tick (up to 10 ms): a
	// file written within a tick of its clone could keep the clone's
	// ctime. A later change gets a ctime past now-tick, so only stamps
	// older than that are kept; the rest are always read by Diff.
	cut := time.Now().Add(-stampSlack)
	for i, e := range files {
		if !stamps[i].ctime.IsZero() && stamps[i].ctime.Before(cut) {
			res.stamps[e.name] = stamps[i]
		}
	}
	return res, nil
}

// cloneLinks makes the base's links in dst.
func (b *Base) cloneLinks(dst string, opts CloneOptions) error {
	for _, e := range b.entries {
		if e.kind != kindLink {
			continue
		}
		p := filepath.Join(dst, filepath.FromSlash(e.name))
		if err := os.Symlink(e.target, p); err != nil {
			return ioErr(err, "create link %s", p)
		}
		if opts.UID >= 0 {
			if err := os.Lchown(p, opts.UID, opts.GID); err != nil {
				return ioErr(err, "chown %s", p)
			}
		}
	}
	return nil
}

func (b *Base) overlayClone(dst string, opts CloneOptions) (CloneResult, error) {
	start := time.Now()
	m, err := b.cloneOverlay(dst, opts)
	if err != nil {
		return CloneResult{}, err
	}
	return CloneResult{Mechanism: Overlay, Files: b.Files, Duration: time.Since(start), overlay: m}, nil
}

// stampSlack is more than the coarsest kernel clock tick (HZ=100).
const stampSlack = 20 * time.Millisecond

// errNoReflink: the file system cannot share extents between these files.
var errNoReflink = errors.New("no reflinks on this file system")

func (b *Base) cloneFile(e entry, dst string, mech Mechanism, opts CloneOptions) (stamp, error) {
	err := b.cloneInto(e, dst, mech, opts)
	if err != nil {
		return stamp{}, err
	}
	fi, err := os.Lstat(filepath.Join(dst, filepath.FromSlash(e.name)))
	if err != nil {
		return stamp{}, ioErr(err, "stat %s", e.name)
	}
	st, _ := stampOf(fi)
	return st, nil
}

func (b *Base) cloneInto(e entry, dst string, mech Mechanism, opts CloneOptions) error {
	src, err := os.Open(filepath.Join(b.Dir, filepath.FromSlash(e.name)))
	if err != nil {
		return ioErr(err, "read the base's %s", e.name)
	}
	defer src.Close()
	p := filepath.Join(dst, filepath.FromSlash(e.name))
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, e.mode)
	if err != nil {
		return ioErr(err, "create %s", p)
	}
	if mech == Reflink {
		err = reflink(out, src)
		if err != nil {
			_ = out.Close()
			_ = os.Remove(p)
			if errors.Is(err, errNoReflink) && opts.Mechanism == Reflink {
				return errcode.Wrap(errcode.IO, err, "workspace: %s=reflink, but the run folder's file system cannot clone %s", CloneEnv, e.name).
					WithHint("put --out on btrfs or XFS (reflink=1), or unset %s", CloneEnv)
			}
			return err
		}
	} else if _, err = io.Copy(out, src); err != nil { // copy_file_range where it can
		_ = out.Close()
		return ioErr(err, "copy %s", e.name)
	}
	if opts.UID >= 0 {
		if err := out.Chown(opts.UID, opts.GID); err != nil {
			_ = out.Close()
			return ioErr(err, "chown %s", p)
		}
	}
	if err := out.Close(); err != nil {
		return ioErr(err, "write %s", p)
	}
	return nil
}

func own(p string, opts CloneOptions) error {
	if opts.UID < 0 {
		return nil
	}
	if err := os.Lchown(p, opts.UID, opts.GID); err != nil {
		return ioErr(err, "chown %s", p)
	}
	return nil
}
