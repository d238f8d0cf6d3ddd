package capsule

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxJSONNodes bounds the nodes one conversion may visit, so that aliases
// cannot expand a small document into a huge one.
const maxJSONNodes = 100000

// yamlToJSON converts a YAML value to compact JSON as serde_json::to_string
// of a serde_yaml::Value does: object keys sorted, scalars typed by their
// YAML 1.2 resolution, dates kept as strings, "<<" kept as a plain key, and
// non-finite floats turned into null.
func yamlToJSON(n *yaml.Node) (json.RawMessage, error) {
	budget := maxJSONNodes
	v, err := jsonValue(n, &budget)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // serde_json leaves <, > and & alone
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func jsonValue(n *yaml.Node, budget *int) (any, error) {
	n = deref(n)
	if *budget--; *budget < 0 {
		return nil, errors.New("document contains excessive aliasing")
	}
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := deref(n.Content[i])
			if k == nil || k.Kind != yaml.ScalarNode {
				return nil, errors.New("key must be a string")
			}
			switch k.ShortTag() {
			case "!!null", "!!float":
				return nil, errors.New("key must be a string")
			}
			if _, dup := out[k.Value]; dup {
				return nil, errors.New("duplicate entry with key " + strconv.Quote(k.Value))
			}
			v, err := jsonValue(n.Content[i+1], budget)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := jsonValue(e, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		return scalarJSON(n), nil
	}
	return nil, nil
}

func scalarJSON(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		return strings.EqualFold(n.Value, "true")
	case "!!int":
		if it, neg, ok := parseYAMLInt(n); ok {
			if u, err := strconv.ParseUint(it.digits, it.base, 64); err == nil {
				if !neg {
					return u
				}
				if u <= 1<<63 {
					return -int64(u-1) - 1
				}
			}
		}
		return floatJSON(n.Value)
	case "!!float":
		return floatJSON(n.Value)
	}
	return n.Value
}

// floatJSON parses a YAML float and formats it as serde_json does: shortest
// form, ".0" on whole numbers, no "+" or leading zeros in the exponent.
func floatJSON(text string) any {
	s := strings.ToLower(strings.TrimPrefix(text, "+"))
	if strings.HasSuffix(s, ".inf") || strings.HasSuffix(s, ".nan") {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if !errors.Is(err, strconv.ErrRange) {
			return text
		}
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e16 {
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64) + ".0")
	}
	out := strconv.FormatFloat(f, 'g', -1, 64)
	if mant, exp, ok := strings.Cut(out, "e"); ok {
		neg := strings.HasPrefix(exp, "-")
		exp = strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")
		if neg {
			exp = "-" + exp
		}
		out = mant + "e" + exp
	}
	return json.Number(out)
}
