package capsule

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// optFloat is an optional f32 field: node is nil when absent or null.
type optFloat struct {
	val  float32
	node *yaml.Node
}

// float32 returns key's value as serde_yaml reads an f32: any plain YAML
// integer or float (.inf and .nan included), narrowed from f64. A quoted
// value is a string and a shape error. The node is nil when absent or null.
func (m *mapping) float32(key string) (float32, *yaml.Node, error) {
	v, err := m.get(key)
	if v == nil || err != nil {
		return 0, nil, err
	}
	if f, ok := parseYAMLFloat(v); ok {
		return float32(f), v, nil
	}
	return 0, nil, m.d.shape(v, m.path(key), "invalid type: %s, expected f32", describe(v))
}

func parseYAMLFloat(v *yaml.Node) (float64, bool) {
	if it, neg, ok := parseYAMLInt(v); ok {
		u, err := strconv.ParseUint(it.digits, it.base, 64)
		if err != nil {
			return 0, false
		}
		if neg {
			return -float64(u), true
		}
		return float64(u), true
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!float" || v.Style != 0 {
		return 0, false
	}
	s := strings.ToLower(v.Value)
	switch strings.TrimLeft(s, "+-") {
	case ".inf":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case ".nan":
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(s, "+"), 64)
	if errors.Is(err, strconv.ErrSyntax) {
		return 0, false
	}
	return f, true
}

// formatF32 formats f as Rust's Display for f32 does: the shortest digits
// that round-trip, never in exponent form; "inf", "-inf", "NaN".
func formatF32(f float32) string {
	switch {
	case math.IsNaN(float64(f)):
		return "NaN"
	case math.IsInf(float64(f), 1):
		return "inf"
	case math.IsInf(float64(f), -1):
		return "-inf"
	}
	return strconv.FormatFloat(float64(f), 'f', -1, 32)
}

// variant returns key's value when it names one of a unit-enum's variants,
// as serde's derived enums require; anything else is a shape error with
// serde's "unknown variant" message. "" when absent or null.
func (m *mapping) variant(key string, variants ...string) (string, *yaml.Node, error) {
	v, err := m.get(key)
	if v == nil || err != nil {
		return "", nil, err
	}
	if v.Kind != yaml.ScalarNode {
		return "", nil, m.d.shape(v, m.path(key), "invalid type: %s, expected %s", describe(v), expectedVariants(variants))
	}
	for _, want := range variants {
		if v.Value == want {
			return want, v, nil
		}
	}
	return "", nil, m.d.shape(v, m.path(key), "unknown variant `%s`, %s", v.Value, expectedVariants(variants))
}

// expectedVariants words a variant list as serde's OneOf does.
func expectedVariants(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "`" + v + "`"
	}
	switch len(q) {
	case 1:
		return "expected " + q[0]
	case 2:
		return "expected " + q[0] + " or " + q[1]
	}
	return "expected one of " + strings.Join(q, ", ")
}

func (e *fieldErrs) float32(m *mapping, key string) optFloat {
	if e.first != nil {
		return optFloat{}
	}
	v, node, err := m.float32(key)
	e.add(err)
	return optFloat{val: v, node: node}
}

func (e *fieldErrs) variant(m *mapping, key string, variants ...string) scalar {
	if e.first != nil {
		return scalar{}
	}
	v, node, err := m.variant(key, variants...)
	e.add(err)
	return scalar{text: v, node: node}
}

// child returns key's value as a mapping, or nil when absent or null.
func (e *fieldErrs) child(m *mapping, key string) *mapping {
	if e.first != nil {
		return nil
	}
	c, err := m.child(key)
	e.add(err)
	return c
}

// seq returns key's value as a list of nodes, nil when absent or null.
func (e *fieldErrs) seq(m *mapping, key string) []*yaml.Node {
	if e.first != nil {
		return nil
	}
	v, err := m.seq(key)
	e.add(err)
	return v
}
