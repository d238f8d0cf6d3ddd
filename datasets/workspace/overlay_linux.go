//go:build linux

package workspace

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// overlayMount is a case's overlay: the session folder (target) mounted
// over the base with its upper and work folders in layer, a folder of the
// run's harness-private .overlays that no tool can reach.
type overlayMount struct {
	target   string
	layer    string
	released atomic.Bool
}

func (m *overlayMount) upper() string { return filepath.Join(m.layer, "upper") }

const (
	dirFlags     = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	pathFlags    = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	opaqueAttr   = "trusted.overlay.opaque"
	redirectAttr = "trusted.overlay.redirect"
)

// overlayOptions: folders of the base can be renamed (redirect_dir: the
// upper folder names the lower one it continues, which scanLayer reads;
// without it rename(2) of such a folder is EXDEV and `git mv` fails), no
// metadata-only copy-up (an upper file always holds its data), no index;
// mountOverlay adds volatile (no syncfs at unmount: a case's upper layer
// never outlives the run).
const overlayOptions = "redirect_dir=on,metacopy=off,index=off,xino=off"

// cloneOverlay mounts an overlay over dst (a fresh, empty session folder)
// with the base as its read-only lower layer: no file is created.
func (b *Base) cloneOverlay(dst string, opts CloneOptions) (*overlayMount, error) {
	if opts.Layers == "" {
		return nil, errcode.New(errcode.Internal, "workspace: an overlay clone without a layers folder")
	}
	if err := b.prepareLower(opts.UID, opts.GID); err != nil {
		return nil, err
	}
	layer, err := os.MkdirTemp(opts.Layers, "s-")
	if err != nil {
		return nil, ioErr(err, "create an overlay's layers")
	}
	m := &overlayMount{target: dst, layer: layer}
	fi, err := os.Lstat(dst)
	if err != nil || !fi.IsDir() {
		_ = os.RemoveAll(layer)
		return nil, ioErr(cmpErr(err, fs.ErrInvalid), "session folder %s", dst)
	}
	// The merged view's root is the upper layer's: it gets the session
	// folder's mode and owner.
	err = os.Mkdir(m.upper(), fi.Mode().Perm())
	if err == nil {
		err = os.Mkdir(filepath.Join(layer, "work"), 0o700)
	}
	if err != nil {
		_ = os.RemoveAll(layer)
		return nil, ioErr(err, "create an overlay's layers")
	}
	if err := mountOverlay(b.Dir, m.upper(), filepath.Join(layer, "work"), dst); err != nil {
		_ = os.RemoveAll(layer)
		return nil, err
	}
	return m, nil
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// mountOverlay mounts target over lower, upper and work. Every folder is
// named by a descriptor opened without following links (/proc/self/fd/N),
// so no path is re-resolved and no comma or colon in it needs escaping.
func mountOverlay(lower, upper, work, target string) error {
	var fds [4]int
	for i, p := range []string{lower, upper, work, target} {
		fd, err := unix.Open(p, pathFlags, 0)
		if err != nil {
			for _, f := range fds[:i] {
				_ = unix.Close(f)
			}
			return ioErr(err, "open %s", p)
		}
		fds[i] = fd
	}
	defer func() {
		for _, f := range fds {
			_ = unix.Close(f)
		}
	}()
	data := fmt.Sprintf("lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d,workdir=/proc/self/fd/%d,%s",
		fds[0], fds[1], fds[2], overlayOptions)
	dst := fmt.Sprintf("/proc/self/fd/%d", fds[3])
	const flags = unix.MS_NOSUID | unix.MS_NODEV
	err := unix.Mount("murmur-eval", dst, "overlay", flags, data+",volatile")
	if errors.Is(err, unix.EINVAL) { // a kernel before 5.10 has no volatile
		err = unix.Mount("murmur-eval", dst, "overlay", flags, data)
	}
	if err != nil {
		return ioErr(err, "mount an overlay on %s", target)
	}
	return nil
}

// unmount detaches the overlay on target, lazily if it is busy.
func unmount(target string) error {
	err := unix.Unmount(target, unix.UMOUNT_NOFOLLOW)
	if errors.Is(err, unix.EBUSY) {
		err = unix.Unmount(target, unix.UMOUNT_NOFOLLOW|unix.MNT_DETACH)
	}
	if err != nil {
		return ioErr(err, "unmount %s", target)
	}
	return nil
}

// prepareLower makes the base the lower layer, once: its files get the
// modes a clone gives (0644, 0755 with an exec bit) and, like a clone's,
// the tool user as owner, so that a shell tool rewrites a workspace file
// in place (the write lands in the case's upper layer). The base's parent,
// .workspaces, is closed to everyone but the evaluator (0700): the base is
// reached only through the overlays.
func (b *Base) prepareLower(uid, gid int) error {
	b.lowerOnce.Do(func() {
		b.lowerErr = b.ownLower(uid, gid)
	})
	return b.lowerErr
}

func (b *Base) ownLower(uid, gid int) error {
	if err := os.Chmod(filepath.Dir(b.Dir), 0o700); err != nil {
		return ioErr(err, "chmod %s", filepath.Dir(b.Dir))
	}
	root, err := os.OpenRoot(b.Dir)
	if err != nil {
		return ioErr(err, "open %s", b.Dir)
	}
	defer root.Close()
	for _, e := range append([]entry{{name: ".", kind: kindDir, mode: 0o755}}, b.entries...) {
		if e.kind != kindLink {
			if err := root.Chmod(e.name, e.mode); err != nil {
				return ioErr(err, "chmod the base's %s", e.name)
			}
		}
		if uid >= 0 {
			if err := root.Lchown(e.name, uid, gid); err != nil {
				return ioErr(err, "chown the base's %s", e.name)
			}
		}
	}
	b.lowerUID, b.lowerGID = uid, gid
	return nil
}

// scanLayer lists dir's entries, parents first, but the session's own
// top-level names (Reserved), at most limit of them and maxDepth deep; the
// note says what was left out. The layer was written by tools: it is read
// by descriptor, never following a link.
func scanLayer(ctx context.Context, dir string, limit int) ([]layerEntry, string, error) {
	return scan(ctx, dir, limit, true)
}

// scan is scanLayer, with the session's own names too unless skipReserved.
func scan(ctx context.Context, dir string, limit int, skipReserved bool) ([]layerEntry, string, error) {
	fd, err := unix.Open(dir, dirFlags, 0)
	if err != nil {
		return nil, "", ioErr(err, "open %s", dir)
	}
	s := layerScan{ctx: ctx, limit: limit, skipReserved: skipReserved}
	s.walk(fd, layerEntry{typ: fs.ModeDir, hasLower: true}, 0)
	return s.out, s.note, ctx.Err()
}

type layerScan struct {
	ctx          context.Context
	limit        int
	skipReserved bool
	out          []layerEntry
	note         string
}

// walk lists the folder fd, which is the layer's entry dir (its name
// "" at the top), parents first.
func (s *layerScan) walk(fd int, dir layerEntry, depth int) {
	f := os.NewFile(uintptr(fd), dir.name)
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil {
		return
	}
	slices.SortFunc(des, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, d := range des {
		if s.ctx.Err() != nil || s.note != "" {
			return
		}
		name := d.Name()
		if s.skipReserved && dir.name == "" && slices.Contains(Reserved(), name) {
			continue
		}
		if len(s.out) >= s.limit {
			s.note = fmt.Sprintf("more than %d paths in the session; the rest not compared", s.limit)
			return
		}
		e := layerEntry{name: path.Join(dir.name, name), typ: d.Type().Type()}
		switch {
		case e.typ&fs.ModeCharDevice != 0:
			var st unix.Stat_t
			e.whiteout = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Rdev == 0
		case e.typ == fs.ModeDir:
			cfd, err := unix.Openat(fd, name, dirFlags, 0)
			if err != nil {
				s.out = append(s.out, e)
				continue
			}
			lowerOf(cfd, &e, dir)
			s.out = append(s.out, e)
			if depth+1 >= maxDepth {
				s.note = fmt.Sprintf("folders deeper than %d not compared (%s)", maxDepth, e.name)
				_ = unix.Close(cfd)
				return
			}
			s.walk(cfd, e, depth+1)
			continue
		}
		s.out = append(s.out, e)
	}
}

// lowerOf reads the overlay's marks on the layer's folder fd, e, whose
// parent is dir: opaque (no lower folder), or a redirect (the base folder
// it was renamed from: absolute from the top, or a name beside it).
func lowerOf(fd int, e *layerEntry, dir layerEntry) {
	var v [2]byte
	n, err := unix.Fgetxattr(fd, opaqueAttr, v[:])
	if e.opaque = err == nil && n == 1 && v[0] == 'y'; e.opaque {
		return
	}
	e.lower, e.hasLower = path.Join(dir.lower, path.Base(e.name)), dir.hasLower
	buf := make([]byte, unix.PathMax)
	n, err = unix.Fgetxattr(fd, redirectAttr, buf)
	if err != nil || n == 0 {
		return
	}
	r := string(buf[:n])
	e.redirect = true
	if strings.HasPrefix(r, "/") {
		e.lower, e.hasLower = strings.Trim(path.Clean(r), "/"), true
	} else {
		e.lower = path.Join(dir.lower, r)
	}
}

// Release ends a case's overlay: the session folder is unmounted and what
// the case wrote (the upper layer: the session's own files, the workspace
// files it changed or added, whiteouts for those it deleted) is moved into
// it, so the folder can be read, kept or removed like any other; the
// base's unchanged files are put back by Materialise. Without an overlay
// it does nothing. It is idempotent.
func (b *Base) Release(clone CloneResult) error {
	m := clone.overlay
	if m == nil || !m.released.CompareAndSwap(false, true) {
		return nil
	}
	if err := unmount(m.target); err != nil {
		m.released.Store(false)
		return err
	}
	if err := moveInto(m.upper(), m.target); err != nil {
		return err
	}
	if err := os.RemoveAll(m.layer); err != nil {
		return ioErr(err, "remove %s", m.layer)
	}
	return nil
}

// moveInto renames every entry of from into the (empty) folder to, and
// gives to from's mode and owner.
func moveInto(from, to string) error {
	ffd, err := unix.Open(from, dirFlags, 0)
	if err != nil {
		return ioErr(err, "open %s", from)
	}
	f := os.NewFile(uintptr(ffd), from)
	defer f.Close()
	tfd, err := unix.Open(to, dirFlags, 0)
	if err != nil {
		return ioErr(err, "open %s", to)
	}
	defer unix.Close(tfd)
	names, err := f.Readdirnames(-1)
	if err != nil {
		return ioErr(err, "read %s", from)
	}
	for _, n := range names {
		if err := unix.Renameat2(ffd, n, tfd, n, unix.RENAME_NOREPLACE); err != nil {
			return ioErr(err, "move %s into %s", n, to)
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(ffd, &st); err != nil {
		return ioErr(err, "stat %s", from)
	}
	if err := unix.Fchown(tfd, int(st.Uid), int(st.Gid)); err != nil {
		return ioErr(err, "chown %s", to)
	}
	if err := unix.Fchmod(tfd, st.Mode&0o7777); err != nil {
		return ioErr(err, "chmod %s", to)
	}
	return nil
}

// Materialise completes a released session folder dst with the base's
// entries the case left as they were: each folder made, each file a hard
// link to the base's (a copy where the file system refuses one), each link
// made again; then the overlay's marks (whiteouts, opaque folders) are
// removed. dst then holds the case's final state, as a clone's would. The
// folder was written by tools: it is walked by descriptor, never following
// a link, and the base is only added where the case left no entry of its
// own. Call it once the base is no lower layer of any mounted case: the
// links share the base's files.
func (b *Base) Materialise(ctx context.Context, dst string) error {
	// The session's own folders too: every folder the case made carries
	// the overlay's opaque mark (redirect_dir), to be removed.
	ups, _, err := scan(ctx, dst, 4*b.lim.MaxEntries, false)
	if err != nil {
		return err
	}
	v := b.view(ups)
	dirs := dirFDs{m: map[string]int{}}
	defer dirs.closeAll()
	top, err := unix.Open(dst, dirFlags, 0)
	if err != nil {
		return ioErr(err, "open %s", dst)
	}
	dirs.m["."] = top
	put := func(e entry, name string) error {
		if _, ok := v.present[name]; ok {
			return nil
		}
		pfd, ok := dirs.open(path.Dir(name))
		if !ok {
			return nil // under something the case made that is no folder
		}
		if err := b.putBack(pfd, path.Base(name), e); err != nil {
			return ioErr(err, "put back %s as %s in %s", e.name, name, dst)
		}
		return nil
	}
	for _, e := range b.entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if hiddenBy(e.name, v.hidden) {
			continue
		}
		if err := put(e, e.name); err != nil {
			return err
		}
	}
	for _, m := range v.moved {
		if err := put(m.e, m.name); err != nil {
			return err
		}
	}
	for _, u := range ups {
		pfd, ok := dirs.open(path.Dir(u.name))
		switch {
		case !ok:
		case u.whiteout:
			_ = unix.Unlinkat(pfd, path.Base(u.name), 0)
		case u.opaque || u.redirect:
			if fd, ok := dirs.open(u.name); ok {
				_ = unix.Fremovexattr(fd, opaqueAttr)
				_ = unix.Fremovexattr(fd, redirectAttr)
			}
		}
	}
	return nil
}

// putBack makes the base's entry e as name in the folder pfd.
func (b *Base) putBack(pfd int, name string, e entry) error {
	switch e.kind {
	case kindDir:
		if err := unix.Mkdirat(pfd, name, uint32(e.mode)); err != nil {
			return err
		}
	case kindLink:
		if err := unix.Symlinkat(e.target, pfd, name); err != nil {
			return err
		}
	default:
		src := filepath.Join(b.Dir, filepath.FromSlash(e.name))
		if err := unix.Linkat(unix.AT_FDCWD, src, pfd, name, 0); err != nil {
			if err := copyAt(src, pfd, name, e.mode); err != nil {
				return err
			}
		}
	}
	if b.lowerUID >= 0 {
		return unix.Fchownat(pfd, name, b.lowerUID, b.lowerGID, unix.AT_SYMLINK_NOFOLLOW)
	}
	return nil
}

// copyAt copies src to a new file name in the folder pfd.
func copyAt(src string, pfd int, name string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fd, err := unix.Openat(pfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(mode))
	if err != nil {
		return err
	}
	out := os.NewFile(uintptr(fd), name)
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// dirFDs holds a walk's open folders by name ("." the top), each opened
// from its parent without following a link.
type dirFDs struct{ m map[string]int }

func (d *dirFDs) open(name string) (int, bool) {
	if fd, ok := d.m[name]; ok {
		return fd, fd >= 0
	}
	pfd, ok := d.open(path.Dir(name))
	fd := -1
	if ok {
		if f, err := unix.Openat(pfd, path.Base(name), dirFlags, 0); err == nil {
			fd = f
		}
	}
	d.m[name] = fd
	return fd, fd >= 0
}

func (d *dirFDs) closeAll() {
	for _, fd := range d.m {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
}

// overlayProbe checks that this process can mount overlays in layers (a
// harness-private folder): root, in the private mount namespace token
// names, and the kernel mounts one (a small one is mounted, written and
// unmounted). Stale mounts under runDir, left in this namespace, are
// detached first.
func overlayProbe(runDir, layers, token string) error {
	switch {
	case os.Geteuid() != 0:
		return errors.New("murmur-eval is not root")
	case !InPrivateMountNS(token):
		return errors.New("murmur-eval is not in a mount namespace of its own (it enters one at start when root; the kernel refused, or it was started another way)")
	}
	sweepMounts(runDir)
	if err := os.RemoveAll(layers); err != nil {
		return err
	}
	if err := os.Mkdir(layers, 0o700); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(layers, "probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, d := range []string{"lower", "upper", "work", "merged"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return err
		}
	}
	merged := filepath.Join(dir, "merged")
	if err := mountOverlay(filepath.Join(dir, "lower"), filepath.Join(dir, "upper"), filepath.Join(dir, "work"), merged); err != nil {
		return err
	}
	err = os.WriteFile(filepath.Join(merged, "probe"), nil, 0o600)
	return errors.Join(err, unmount(merged))
}

// sweepMounts detaches every mount under dir listed in this process's
// mount table (a run killed outside a private namespace of its own).
func sweepMounts(dir string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		p := unescapeMountPath(fields[4])
		if p != dir && strings.HasPrefix(p, dir+"/") {
			points = append(points, p)
		}
	}
	// Deepest first.
	slices.SortFunc(points, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, p := range points {
		_ = unix.Unmount(p, unix.UMOUNT_NOFOLLOW|unix.MNT_DETACH)
	}
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			ok := true
			for _, c := range s[i+1 : i+4] {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				v = v*8 + byte(c-'0')
			}
			if ok {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
