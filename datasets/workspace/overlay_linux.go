//go:build linux

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
