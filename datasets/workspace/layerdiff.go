package workspace

import (
	"io/fs"
	"path"
	"slices"
	"strings"
)

// layerEntry is one entry of an overlay's upper layer (or of a released
// session, which holds that layer's entries).
type layerEntry struct {
	name     string
	typ      fs.FileMode // 0 for a regular file, fs.ModeDir, fs.ModeSymlink, ...
	whiteout bool        // the base's entry at name was deleted
	opaque   bool        // a folder that hides the base's folder at name
	redirect bool        // a base folder renamed to name
	// lower is the base folder a (not opaque) folder continues: its own
	// name, its parent's lower folder joined with its name, or where it was
	// renamed from; none when hasLower is false (under an opaque folder).
	lower    string
	hasLower bool
}

// moved reports whether u shows a base folder under another name: its
// own rename, or a parent's.
func (u layerEntry) moved() bool {
	return u.typ == fs.ModeDir && !u.opaque && u.hasLower && u.lower != u.name
}

// layerView is what an upper layer makes of the base: the names the layer
// holds, the base names no longer seen where they were (hidden: a
// whiteout, an opaque or renamed folder, or a non-folder over them), and
// the base entries seen under another name (a renamed folder's).
type layerView struct {
	present map[string]layerEntry
	hidden  map[string]bool
	moved   []movedEntry
}

// movedEntry: the base's entry e is seen as name.
type movedEntry struct {
	e    entry
	name string
}

func (b *Base) view(ups []layerEntry) layerView {
	v := layerView{present: make(map[string]layerEntry, len(ups)), hidden: map[string]bool{}}
	for _, u := range ups {
		v.present[u.name] = u
		if u.whiteout || u.opaque || u.redirect || u.typ != fs.ModeDir {
			v.hidden[u.name] = true
		}
	}
	for _, u := range ups {
		if !u.moved() {
			continue
		}
		// The base's children of u.lower the layer does not hold are seen
		// in u, with all they contain.
		var child string
		for _, e := range b.under(u.lower) {
			rest := e.name[len(u.lower)+1:]
			if u.lower == "" {
				rest = e.name
			}
			top, _, _ := strings.Cut(rest, "/")
			if top != child {
				child = top
			}
			if _, ok := v.present[path.Join(u.name, child)]; ok {
				continue // the layer's own entry (a folder continues by itself)
			}
			v.moved = append(v.moved, movedEntry{e: e, name: path.Join(u.name, rest)})
		}
	}
	return v
}

// layerChanges turns an overlay's upper layer into what Diff compares:
// the names that may differ from the base (every non-folder of the layer,
// every base entry no longer seen where it was, every base entry seen
// under a renamed folder) and the session's kind of each that is present.
// Nothing else can differ: an entry the case never touched is still the
// lower layer's.
func (b *Base) layerChanges(ups []layerEntry) ([]string, map[string]fs.FileMode) {
	v := b.view(ups)
	sess := map[string]fs.FileMode{}
	cand := map[string]bool{}
	for _, u := range ups {
		if u.whiteout {
			continue
		}
		sess[u.name] = u.typ
		if u.typ != fs.ModeDir {
			cand[u.name] = true
		} else if e, ok := b.entry(u.name); ok && e.kind != kindDir {
			cand[u.name] = true // a file or link the case made a folder
		}
	}
	if len(v.hidden) > 0 {
		for _, e := range b.entries {
			if e.kind != kindDir && hiddenBy(e.name, v.hidden) {
				cand[e.name] = true
			}
		}
	}
	for _, m := range v.moved {
		switch m.e.kind {
		case kindDir:
			sess[m.name] = fs.ModeDir
		case kindLink:
			sess[m.name], cand[m.name] = fs.ModeSymlink, true
		default:
			sess[m.name], cand[m.name] = 0, true
		}
	}
	names := make([]string, 0, len(cand))
	for n := range cand {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, sess
}

// hiddenBy reports whether name or one of its parents is in hidden.
func hiddenBy(name string, hidden map[string]bool) bool {
	if len(hidden) == 0 {
		return false
	}
	for p := name; ; {
		if hidden[p] {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// entry finds the base's entry named name (entries are sorted by name).
func (b *Base) entry(name string) (entry, bool) {
	i, ok := slices.BinarySearchFunc(b.entries, name, func(e entry, n string) int { return strings.Compare(e.name, n) })
	if !ok {
		return entry{}, false
	}
	return b.entries[i], true
}

// under returns the base's entries beneath the folder dir ("" for all),
// parents first: names with the prefix dir+"/" are contiguous in the
// sorted entries.
func (b *Base) under(dir string) []entry {
	if dir == "" {
		return b.entries
	}
	lo, _ := slices.BinarySearchFunc(b.entries, dir+"/", func(e entry, n string) int { return strings.Compare(e.name, n) })
	hi := lo
	for hi < len(b.entries) && strings.HasPrefix(b.entries[hi].name, dir+"/") {
		hi++
	}
	return b.entries[lo:hi]
}
