//go:build linux

package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

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
