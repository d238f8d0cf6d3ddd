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
	baseKind := make(map[string]kind, len(b.entries))
	for _, e := range b.entries {
		baseKind[e.name] = e.kind
	}
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
		if k, ok := baseKind[u.name]; ok && k != kindDir {
			cand[u.name] = true // a file or link the case made a folder
		}
	}
	for _, e := range b.entries {
		if e.kind != kindDir && hiddenBy(e.name, hidden) {
			cand[e.name] = true
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
