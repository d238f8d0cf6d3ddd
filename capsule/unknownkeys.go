package capsule

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/internal/suggest"
)

// UnknownKey is a key of a manifest that no field of murmur's format has.
// murmur ignores such keys, so murmur-eval does too, but reports them: a
// typo (`artifact:` for `artifacts:`) silently drops what it configured.
type UnknownKey struct {
	Where   string // file:line:col of the key
	Field   string // dotted path of the key, e.g. "inference.max_turn"
	Suggest string // the known key of the same mapping it most likely meant; "" when none is close
}

// String reads `murmur.yaml:3:1: unknown key "artifact" (did you mean
// "artifacts"?); murmur ignores it`.
func (u UnknownKey) String() string {
	s := fmt.Sprintf("%s: unknown key %q", u.Where, u.Field)
	if u.Suggest != "" {
		s += fmt.Sprintf(" (did you mean %q?)", u.Suggest)
	}
	return s + "; murmur ignores it"
}

// evalField is the manifest's scorers' block (murmur-formats.md §1.7).
const evalField = "observability.eval"

// Scoring says whether the key is in observability.eval, or most likely
// meant observability or its eval: the scorers it configures are not
// applied as written (a misspelt block drops them all). Other unknown keys
// change nothing scored.
func (u UnknownKey) Scoring() bool {
	meant := u.Field
	if u.Suggest != "" {
		parent, _ := cutLast(u.Field)
		meant = strings.TrimPrefix(parent+"."+u.Suggest, ".")
	}
	return meant == "observability" || within(u.Field, evalField) || within(meant, evalField)
}

// within says whether field is block or a key inside it.
func within(field, block string) bool {
	return field == block || strings.HasPrefix(field, block+".")
}

// cutLast splits a dotted path at its last dot: "a.b.c" is "a.b" and "c".
func cutLast(field string) (parent, key string) {
	i := strings.LastIndex(field, ".")
	if i < 0 {
		return "", field
	}
	return field[:i], field[i+1:]
}

// unknownKeys lists the keys of every mapping decoded so far that the
// decoder never asked for, in file order. The suggestions come from the
// keys it asked for in the same mapping: those are the format's fields at
// that place.
func (d *decoder) unknownKeys() []UnknownKey {
	var out []UnknownKey
	lines := map[string]int{}
	for _, m := range d.maps {
		known := make([]string, 0, len(m.asked))
		for k := range m.asked {
			known = append(known, k)
		}
		slices.Sort(known)
		for i := 0; i+1 < len(m.node.Content); i += 2 {
			k := deref(m.node.Content[i])
			if k == nil || k.Kind != yaml.ScalarNode || m.asked[k.Value] {
				continue
			}
			u := UnknownKey{Where: d.where(k), Field: m.path(k.Value), Suggest: suggest.Closest(k.Value, known)}
			if _, dup := lines[u.Where]; dup {
				continue // an alias or merge shown twice
			}
			lines[u.Where] = k.Line
			out = append(out, u)
		}
	}
	slices.SortStableFunc(out, func(a, b UnknownKey) int { return lines[a.Where] - lines[b.Where] })
	return out
}
