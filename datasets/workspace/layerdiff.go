package workspace

import (
	"io/fs"
	"slices"
	"strings"
)

// layerChanges turns an overlay's upper layer into what Diff compares:
// the names that may differ from the base (every non-folder of the layer,
// every base entry a whiteout, an opaque folder or a non-folder hides) and
// the session's kind of each of them that is present. Nothing else can
// differ: an entry the case never touched is still the lower layer's.
func (b *Base) layerChanges(ups []layerEntry) ([]string, map[string]fs.FileMode) {
	sess := map[string]fs.FileMode{}
	cand := map[string]bool{}
	hidden := map[string]bool{}
	for _, u := range ups {
		if u.whiteout {
			hidden[u.name] = true
			continue
		}
		sess[u.name] = u.typ
		if u.typ != fs.ModeDir {
			cand[u.name], hidden[u.name] = true, true
			continue
		}
		if u.opaque {
			hidden[u.name] = true
		}
		if e, ok := b.entry(u.name); ok && e.kind != kindDir {
			cand[u.name] = true // a file or link the case made a folder
		}
	}
	if len(hidden) > 0 {
		for _, e := range b.entries {
			if e.kind != kindDir && hiddenBy(e.name, hidden) {
				cand[e.name] = true
			}
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
