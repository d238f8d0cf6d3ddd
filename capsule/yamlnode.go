package capsule

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// decoder walks a yaml.Node tree the way serde_yaml deserialises murmur's raw
// structs, so that every error can say file:line:col. Each format has its own
// code and message prefix for shape errors (E-MAN-002 for the manifest, E-RUN-003
// for the lock).
type decoder struct {
	file   string // path as given, used in Where
	code   string // code for YAML syntax and shape errors
	prefix string // message prefix for those errors
	// maps are the mappings decoded so far, for unknownKeys.
	maps []*mapping
}

// where formats n's position as file:line:col, or just the file without one.
func (d *decoder) where(n *yaml.Node) string {
	if n == nil || n.Line == 0 {
		return d.file
	}
	return fmt.Sprintf("%s:%d:%d", d.file, n.Line, n.Column)
}

// shape reports YAML whose shape is wrong for field.
func (d *decoder) shape(n *yaml.Node, field, format string, args ...any) *errcode.Error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return errcode.New(d.code, "%s%s", d.prefix, msg).At(d.where(n))
}

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// document parses data as exactly one YAML document and returns its root
// node, or nil for an empty stream or a null document.
func (d *decoder) document(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, d.syntax(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, d.syntax(err)
		}
		return nil, d.shape(&extra, "", "deserializing from YAML containing more than one document is not supported")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	root := deref(doc.Content[0])
	if isNull(root) {
		return nil, nil
	}
	return root, nil
}

// syntax converts a yaml.v3 parse error, keeping its line when it has one.
func (d *decoder) syntax(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLineErr.FindStringSubmatch(err.Error()); m != nil {
		return errcode.New(d.code, "%s%s", d.prefix, m[2]).At(d.file + ":" + m[1])
	}
	return errcode.New(d.code, "%s%s", d.prefix, msg).At(d.file)
}

// deref follows aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > 64 {
			return nil
		}
		n = n.Alias
	}
	return n
}

// isNull reports whether n is absent, `null`, `~` or an empty plain value.
func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// describe names n the way serde's "invalid type" messages do.
func describe(n *yaml.Node) string {
	if n == nil {
		return "unit value"
	}
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.MappingNode:
		return "map"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!bool":
			return fmt.Sprintf("boolean `%s`", n.Value)
		case "!!int":
			return fmt.Sprintf("integer `%s`", n.Value)
		case "!!float":
			return fmt.Sprintf("floating point `%s`", n.Value)
		case "!!null":
			return "unit value"
		}
		return fmt.Sprintf("string %q", n.Value)
	}
	return "value"
}

// mapping indexes a YAML mapping by its scalar keys. Unknown keys are kept
// but never used, which is how murmur ignores them; every key the decoder
// asks for (present or not) is noted in asked, so the keys it never asked
// for can be reported (unknownKeys).
type mapping struct {
	d     *decoder
	node  *yaml.Node
	field string // dotted path of this mapping; "" for the root
	vals  map[string]*yaml.Node
	dups  map[string]*yaml.Node // key node of a repeated key
	asked map[string]bool
}

func (d *decoder) mapping(n *yaml.Node, field, expected string) (*mapping, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, d.shape(n, field, "invalid type: %s, expected %s", describe(n), expected)
	}
	m := &mapping{d: d, node: n, field: field, vals: map[string]*yaml.Node{}, dups: map[string]*yaml.Node{}, asked: map[string]bool{}}
	d.maps = append(d.maps, m)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		if _, seen := m.vals[k.Value]; seen {
			m.dups[k.Value] = k
			continue
		}
		m.vals[k.Value] = n.Content[i+1]
	}
	return m, nil
}

// path returns the dotted path of key inside m.
func (m *mapping) path(key string) string {
	if m.field == "" {
		return key
	}
	return m.field + "." + key
}

// has reports whether key is present, even with a null value.
func (m *mapping) has(key string) bool {
	m.asked[key] = true
	_, ok := m.vals[key]
	return ok
}

// raw returns key's value node as written (nil when absent) and whether
// the key is present.
func (m *mapping) raw(key string) (*yaml.Node, bool) {
	m.asked[key] = true
	v, ok := m.vals[key]
	return v, ok
}

// value is raw without the presence flag.
func (m *mapping) value(key string) *yaml.Node {
	v, _ := m.raw(key)
	return v
}

// get returns key's value, or nil when it is absent or null. A repeated key
// is an error, as serde reports a duplicate field.
func (m *mapping) get(key string) (*yaml.Node, error) {
	m.asked[key] = true
	if k, ok := m.dups[key]; ok {
		return nil, m.d.shape(k, m.field, "duplicate field `%s`", key)
	}
	v := deref(m.vals[key])
	if isNull(v) {
		return nil, nil
	}
	return v, nil
}

// child returns key's value as a mapping, or nil when absent.
func (m *mapping) child(key string) (*mapping, error) {
	v, err := m.get(key)
	if v == nil || err != nil {
		return nil, err
	}
	return m.d.mapping(v, m.path(key), "a mapping")
}
