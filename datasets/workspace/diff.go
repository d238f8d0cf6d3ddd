package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// DiffFile is where Diff writes, relative to the session folder.
const DiffFile = "out/workspace.diff"

// Diff bounds.
const (
	// DefaultDiffMax caps out/workspace.diff; the rest is counted, not kept.
	DefaultDiffMax = 4 << 20
	// textMax: files larger than this are compared, not diffed line by line.
	textMax = 1 << 20
	// sniff is how much of a file is searched for a NUL byte (binary).
	sniff = 8000
	// maxDepth bounds the session walk (a tool may nest folders deeply).
	maxDepth = 256
)

// DiffResult is what Diff found.
type DiffResult struct {
	// Bytes is the whole diff's size, also when the file was cut at its cap.
	Bytes int64
	// Changed counts the paths that differ (added, removed or changed).
	Changed int
}

// Diff compares the session folder dir (hostile by now: every access
// through sessionfs) with the base it was cloned from and writes
// out/workspace.diff: a unified diff of text files, paths relative to the
// session as a/<path> and b/<path>, binary and large files named, links
// and changes of kind described in a line. The session's own files
// (Reserved) are not compared. The file is cut at maxBytes (DefaultDiffMax
// when <= 0), and at most twice the base's entry limit of paths are walked.
//
// A file whose inode, ctime and size are still those clone recorded is
// taken as unchanged without being read (the kernel sets ctime on every
// write, and no tool can set it back); pass the zero CloneResult to read
// every file. A clone that is an overlay is compared by its upper layer
// alone (what the case changed, added or deleted); the files are still read
// through the merged session folder, so call Diff before Release.
func (b *Base) Diff(ctx context.Context, dir string, clone CloneResult, maxBytes int64) (DiffResult, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultDiffMax
	}
	root, err := sessionfs.Open(dir)
	if err != nil {
		return DiffResult{}, err
	}
	defer root.Close()
	var buf cappedBuffer
	buf.max = maxBytes
	res := DiffResult{}
	base := map[string]entry{}
	var names []string
	var sess map[string]fs.FileMode
	var stamps map[string]stamp
	var walkNote string
	if clone.overlay != nil {
		// Only what the upper layer holds can differ: no walk of the
		// merged view, which reads through to the base.
		ups, note, err := scanLayer(ctx, clone.overlay.upper(), 2*b.lim.MaxEntries)
		if err != nil {
			return DiffResult{}, err
		}
		names, sess = b.layerChanges(ups)
		walkNote = note
		for _, n := range names {
			if e, ok := b.entry(n); ok && e.kind != kindDir {
				base[n] = e
			}
		}
	} else {
		for _, e := range b.entries {
			if e.kind != kindDir {
				base[e.name] = e
				names = append(names, e.name)
			}
		}
		sess, stamps, walkNote = walkSession(ctx, root, 2*b.lim.MaxEntries)
		for n, k := range sess {
			if _, ok := base[n]; !ok && k != fs.ModeDir {
				names = append(names, n)
			}
		}
		slices.Sort(names)
	}
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return DiffResult{}, err
		}
		if st, ok := stamps[n]; ok && clone.stamps != nil && clone.stamps[n] == st {
			continue // untouched since the clone
		}
		changed, err := b.diffOne(&buf, root, n, base, sess)
		if err != nil {
			return DiffResult{}, err
		}
		if changed {
			res.Changed++
		}
	}
	if walkNote != "" {
		fmt.Fprintf(&buf, "murmur-eval: %s\n", walkNote)
	}
	res.Bytes = buf.total
	data := buf.bytes()
	if buf.total > buf.max {
		data = append(data, fmt.Sprintf("\nmurmur-eval: diff cut at %d of its %d bytes\n", buf.max, buf.total)...)
	}
	if err := root.WriteFile(DiffFile, data, 0o644); err != nil {
		return DiffResult{}, errcode.WrapKeep(errcode.IO, err, "write %s", DiffFile)
	}
	return res, nil
}

// walkSession lists the session's entries (but its own, Reserved) by kind
// (fs.ModeDir, fs.ModeSymlink, 0 for a regular file, another type bit
// otherwise) with the regular files' stamps, at most limit of them; the
// note says what was left out.
func walkSession(ctx context.Context, root *sessionfs.Root, limit int) (map[string]fs.FileMode, map[string]stamp, string) {
	out := map[string]fs.FileMode{}
	stamps := map[string]stamp{}
	note := ""
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if ctx.Err() != nil || note != "" {
			return
		}
		if depth > maxDepth {
			note = fmt.Sprintf("folders deeper than %d not compared (%s)", maxDepth, dir)
			return
		}
		des, err := root.ReadDir(dir, 0)
		if err != nil {
			return // vanished or swapped: what is there is listed by its parent
		}
		for _, d := range des {
			name := d.Name()
			if dir != "." {
				name = path.Join(dir, name)
			} else if slices.Contains(Reserved(), name) {
				continue
			}
			if len(out) >= limit {
				note = fmt.Sprintf("more than %d paths in the session; the rest not compared", limit)
				return
			}
			t := d.Type().Type()
			out[name] = t
			if t == 0 {
				// lstat's view; a swap under it only makes Diff read the
				// file (through sessionfs) instead of skipping it.
				if fi, err := d.Info(); err == nil {
					if st, ok := stampOf(fi); ok {
						stamps[name] = st
					}
				}
			}
			if t == fs.ModeDir {
				walk(name, depth+1)
			}
		}
	}
	walk(".", 0)
	return out, stamps, note
}

func kindName(m fs.FileMode) string {
	switch {
	case m == 0:
		return "a regular file"
	case m == fs.ModeDir:
		return "a folder"
	case m == fs.ModeSymlink:
		return "a link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a " + m.String()
}

// diffOne writes what changed at name; it reports whether anything did.
func (b *Base) diffOne(w io.Writer, root *sessionfs.Root, name string, base map[string]entry, sess map[string]fs.FileMode) (bool, error) {
	e, inBase := base[name]
	k, inSess := sess[name]
	a, bn := "a/"+name, "b/"+name
	switch {
	case !inSess:
		if e.kind == kindLink {
			fmt.Fprintf(w, "Only in a: %s (link to %s)\n", name, e.target)
			return true, nil
		}
		return true, b.fileDiff(w, root, name, a, "/dev/null", true, false)
	case !inBase:
		switch k {
		case 0:
			return true, b.fileDiff(w, root, name, "/dev/null", bn, false, true)
		case fs.ModeSymlink:
			t, _ := root.Readlink(name)
			fmt.Fprintf(w, "Only in b: %s (link to %s)\n", name, t)
		default:
			fmt.Fprintf(w, "Only in b: %s (%s)\n", name, kindName(k))
		}
		return true, nil
	}
	wantKind := fs.FileMode(0)
	if e.kind == kindLink {
		wantKind = fs.ModeSymlink
	}
	if k != wantKind {
		fmt.Fprintf(w, "File %s is %s while %s is %s\n", a, kindName(wantKind), bn, kindName(k))
		return true, nil
	}
	if e.kind == kindLink {
		t, err := root.Readlink(name)
		if err != nil || t != e.target {
			fmt.Fprintf(w, "Link %s -> %s changed to %s -> %s\n", a, e.target, bn, t)
			return true, nil
		}
		return false, nil
	}
	return b.compareFile(w, root, name, a, bn)
}

// fileDiff writes a whole file as removed (gone) or added (fresh).
func (b *Base) fileDiff(w io.Writer, root *sessionfs.Root, name, from, to string, gone, fresh bool) error {
	var data []byte
	var big bool
	if gone {
		data, big = b.readBase(name)
	} else {
		data, big = readSession(root, name)
	}
	if big || isBinary(data) {
		fmt.Fprintf(w, "Binary files %s and %s differ\n", from, to)
		return nil
	}
	if gone {
		return unified(w, from, to, string(data), "")
	}
	return unified(w, from, to, "", string(data))
}

// compareFile diffs a file present on both sides.
func (b *Base) compareFile(w io.Writer, root *sessionfs.Root, name, from, to string) (bool, error) {
	x, bigX := b.readBase(name)
	y, bigY := readSession(root, name)
	if !bigX && !bigY {
		if bytes.Equal(x, y) {
			return false, nil
		}
		if isBinary(x) || isBinary(y) {
			fmt.Fprintf(w, "Binary files %s and %s differ\n", from, to)
			return true, nil
		}
		return true, unified(w, from, to, string(x), string(y))
	}
	if b.sameLarge(root, name) {
		return false, nil
	}
	fmt.Fprintf(w, "Files %s and %s differ (larger than %d bytes: not diffed)\n", from, to, textMax)
	return true, nil
}

// readBase reads a base file, or says it is larger than textMax.
func (b *Base) readBase(name string) ([]byte, bool) {
	f, err := os.Open(filepath.Join(b.Dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, true
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, textMax+1))
	return data, err != nil || len(data) > textMax
}

// readSession reads a session file through sessionfs, or says it is
// larger than textMax (or unreadable: a FIFO, a link out).
func readSession(root *sessionfs.Root, name string) ([]byte, bool) {
	data, err := root.ReadFile(name, textMax)
	return data, err != nil
}

// sameLarge compares two large files in chunks.
func (b *Base) sameLarge(root *sessionfs.Root, name string) bool {
	x, err := os.Open(filepath.Join(b.Dir, filepath.FromSlash(name)))
	if err != nil {
		return false
	}
	defer x.Close()
	y, err := root.OpenRead(name)
	if err != nil {
		return false
	}
	defer y.Close()
	bx, by := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		nx, ex := io.ReadFull(x, bx)
		ny, ey := io.ReadFull(y, by)
		if nx != ny || !bytes.Equal(bx[:nx], by[:ny]) {
			return false
		}
		if ex != nil || ey != nil {
			return (ex == io.EOF || ex == io.ErrUnexpectedEOF) && (ey == io.EOF || ey == io.ErrUnexpectedEOF)
		}
	}
}

func isBinary(b []byte) bool { return bytes.IndexByte(b[:min(len(b), sniff)], 0) >= 0 }

// cappedBuffer keeps the first max bytes written and counts them all.
type cappedBuffer struct {
	buf   bytes.Buffer
	max   int64
	total int64
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	if room := c.max - int64(c.buf.Len()); room > 0 {
		c.buf.Write(p[:min(int64(len(p)), room)])
	}
	return len(p), nil
}

func (c *cappedBuffer) bytes() []byte { return c.buf.Bytes() }
