package capsule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// scalar is an optional string field: node is nil when absent or null.
type scalar struct {
	text string
	node *yaml.Node
}

func (s scalar) blank() bool { return s.node == nil || strings.TrimSpace(s.text) == "" }

// trimmed returns the trimmed text, "" when absent.
func (s scalar) trimmed() string { return strings.TrimSpace(s.text) }

// optBool is an optional boolean field.
type optBool struct {
	val, set bool
}

// optUint is an optional integer field: node is nil when absent or null.
type optUint struct {
	val  uint64
	node *yaml.Node
}

// str returns key's scalar text verbatim (`1.10` stays "1.10") and its node;
// the node is nil when the key is absent or null.
func (m *mapping) str(key string) (string, *yaml.Node, error) {
	v, err := m.get(key)
	if v == nil || err != nil {
		return "", nil, err
	}
	if v.Kind != yaml.ScalarNode {
		return "", nil, m.d.shape(v, m.path(key), "invalid type: %s, expected a string", describe(v))
	}
	return v.Value, v, nil
}

// boolean returns key's value; ok is false when the key is absent or null.
// Only the spellings serde_yaml accepts are booleans.
func (m *mapping) boolean(key string) (val, ok bool, err error) {
	v, err := m.get(key)
	if v == nil || err != nil {
		return false, false, err
	}
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!bool" {
		switch v.Value {
		case "true", "True", "TRUE":
			return true, true, nil
		case "false", "False", "FALSE":
			return false, true, nil
		}
	}
	return false, false, m.d.shape(v, m.path(key), "invalid type: %s, expected a boolean", describe(v))
}

// uint returns key's value as an unsigned integer of the given bit size
// (typeName names it in messages: "u32", "u64", "usize"); the node is nil when
// the key is absent or null.
func (m *mapping) uint(key string, bits int, typeName string) (uint64, *yaml.Node, error) {
	v, err := m.get(key)
	if v == nil || err != nil {
		return 0, nil, err
	}
	n, neg, isInt := parseYAMLInt(v)
	if !isInt {
		return 0, nil, m.d.shape(v, m.path(key), "invalid type: %s, expected %s", describe(v), typeName)
	}
	u, perr := strconv.ParseUint(n.digits, n.base, bits)
	if neg && u == 0 && perr == nil {
		return 0, v, nil
	}
	if neg || perr != nil {
		return 0, nil, m.d.shape(v, m.path(key), "invalid value: integer `%s`, expected %s", v.Value, typeName)
	}
	return u, v, nil
}

type intText struct {
	digits string
	base   int
}

// parseYAMLInt recognises a plain YAML 1.2 integer: an optional sign, then
// decimal digits or a 0x, 0o or 0b prefixed number.
func parseYAMLInt(v *yaml.Node) (intText, bool, bool) {
	if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!str" || v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return intText{}, false, false
	}
	s, neg := v.Value, false
	if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		neg, s = s[0] == '-', s[1:]
	}
	base, digits := 10, s
	switch {
	case strings.HasPrefix(s, "0x"):
		base, digits = 16, s[2:]
	case strings.HasPrefix(s, "0o"):
		base, digits = 8, s[2:]
	case strings.HasPrefix(s, "0b"):
		base, digits = 2, s[2:]
	}
	if _, err := strconv.ParseUint(digits, base, 64); errors.Is(err, strconv.ErrSyntax) {
		return intText{}, false, false
	}
	return intText{digits: digits, base: base}, neg, true
}

// strs returns key's value as a list of scalar texts; nil when absent or null.
func (m *mapping) strs(key string) ([]string, error) {
	v, err := m.get(key)
	if v == nil || err != nil {
		return nil, err
	}
	if v.Kind != yaml.SequenceNode {
		return nil, m.d.shape(v, m.path(key), "invalid type: %s, expected a sequence", describe(v))
	}
	out := make([]string, 0, len(v.Content))
	for i, e := range v.Content {
		e = deref(e)
		if e == nil || e.Kind != yaml.ScalarNode {
			return nil, m.d.shape(e, fmt.Sprintf("%s[%d]", m.path(key), i), "invalid type: %s, expected a string", describe(e))
		}
		out = append(out, e.Value)
	}
	return out, nil
}

// seq returns key's value as a list of nodes; nil when absent or null.
func (m *mapping) seq(key string) ([]*yaml.Node, error) {
	v, err := m.get(key)
	if v == nil || err != nil {
		return nil, err
	}
	if v.Kind != yaml.SequenceNode {
		return nil, m.d.shape(v, m.path(key), "invalid type: %s, expected a sequence", describe(v))
	}
	return v.Content, nil
}

func boolOr(b optBool, def bool) bool {
	if b.set {
		return b.val
	}
	return def
}

// fieldErrs keeps the first decoding error so a run of field reads stays flat.
type fieldErrs struct{ first error }

// add records err if it is the first; it reports whether any error is recorded.
func (e *fieldErrs) add(err error) bool {
	if e.first == nil {
		e.first = err
	}
	return e.first != nil
}

func (e *fieldErrs) str(m *mapping, key string) scalar {
	if e.first != nil {
		return scalar{}
	}
	text, node, err := m.str(key)
	e.add(err)
	return scalar{text: text, node: node}
}

func (e *fieldErrs) boolean(m *mapping, key string) optBool {
	if e.first != nil {
		return optBool{}
	}
	v, ok, err := m.boolean(key)
	e.add(err)
	return optBool{val: v, set: ok}
}

func (e *fieldErrs) uint(m *mapping, key string, bits int, typeName string) optUint {
	if e.first != nil {
		return optUint{}
	}
	v, node, err := m.uint(key, bits, typeName)
	e.add(err)
	return optUint{val: v, node: node}
}

func (e *fieldErrs) strs(m *mapping, key string) []string {
	if e.first != nil {
		return nil
	}
	v, err := m.strs(key)
	e.add(err)
	return v
}
