package capsule

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/suggest"
)

// didYouMean puts the name of known closest to name (internal/suggest), if
// one is close, at the front of e's hint: `did you mean "calc" (where)?`.
// The error keeps its code and message.
func didYouMean(e *errcode.Error, name string, known []string, where string) *errcode.Error {
	s := suggest.Closest(name, known)
	if s == "" {
		return e
	}
	h := fmt.Sprintf("did you mean %q (%s)?", s, where)
	if e.Hint != "" {
		h += " Else " + e.Hint
	}
	e.Hint = h
	return e
}

// artifactNames are the names of m's artifacts: entries, in manifest order.
func (m *Manifest) artifactNames() []string {
	names := make([]string, 0, len(m.Artifacts))
	for _, a := range m.Artifacts {
		names = append(names, a.Name)
	}
	return names
}

// names are the artifacts the lock pins, in lock order.
func (l *Lock) names() []string {
	names := make([]string, 0, len(l.Artifacts))
	for _, e := range l.Artifacts {
		names = append(names, e.Name)
	}
	return names
}

// installed lists what the stores hold: each artifact name (a store's
// <name>/ folder) with its versions (<name>/<version>/ folders), names in
// store order, then by name. An unreadable store holds nothing.
func (r *Registry) installed() (names []string, versions map[string][]string) {
	versions = map[string][]string{}
	for _, store := range r.Stores {
		entries, _ := os.ReadDir(store)
		for _, n := range entries {
			if !n.IsDir() {
				continue
			}
			if _, seen := versions[n.Name()]; !seen {
				names = append(names, n.Name())
			}
			vs, _ := os.ReadDir(store + string(os.PathSeparator) + n.Name())
			for _, v := range vs {
				if v.IsDir() && !slices.Contains(versions[n.Name()], v.Name()) {
					versions[n.Name()] = append(versions[n.Name()], v.Name())
				}
			}
			if versions[n.Name()] == nil {
				versions[n.Name()] = []string{}
			}
		}
	}
	return names, versions
}

// notInstalledHint is the start of the hint for name@version that no store
// has: the versions of name the stores do have, or the installed name
// closest to name.
func (r *Registry) notInstalledHint(e *errcode.Error, name, version string) *errcode.Error {
	names, versions := r.installed()
	if vs := versions[name]; len(vs) > 0 {
		e.Hint = fmt.Sprintf("installed versions of %s: %s; pin one in artifacts:, or install %s@%s. Else %s", name, strings.Join(vs, ", "), name, version, e.Hint)
		return e
	}
	return didYouMean(e, name, names, "installed")
}
