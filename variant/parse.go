package variant

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// maxFileBytes bounds a --variants file: a list of a few overrides.
const maxFileBytes = 1 << 20

// keys are a variant's keys, and what each takes (the hint of an unknown
// key lists them).
const keys = "name, model, endpoint (or base_url), api (or provider), config, max_turns, max_tokens"

// Load reads a --variants file (Parse).
func Load(path string) (Set, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Set{}, errcode.Wrap(errcode.IONotFound, err, "--variants %s", path)
	}
	if fi.Size() > maxFileBytes {
		return Set{}, errcode.New(errcode.Variants, "--variants %s: %d bytes, more than %d", path, fi.Size(), maxFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Set{}, errcode.Wrap(errcode.IO, err, "--variants %s", path)
	}
	return Parse(path, data)
}

// Parse reads variants from YAML (JSON is YAML too): a list of mappings,
// each with a name, or a mapping of names to mappings:
//
//   - name: small
//     model: gpt-5-mini
//     max_turns: 5
//   - {name: claude, model: claude-sonnet-4-5, api: anthropic, endpoint: https://api.anthropic.com}
//
// An unknown key, a bad value or a name given twice is E-EVL-002 at
// path:line:column, naming the field, with a hint.
func Parse(path string, data []byte) (Set, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Set{}, errcode.Wrap(errcode.Variants, err, "--variants %s is not YAML", path).
			WithHint("write a list of variants: - {name: small, model: gpt-5-mini}")
	}
	p := parser{path: path}
	if len(doc.Content) == 0 {
		return Set{}, p.fail(&doc, "", "has no variant")
	}
	root := doc.Content[0]
	var vs []Variant
	switch root.Kind {
	case yaml.SequenceNode:
		for i, n := range root.Content {
			v, err := p.variant(n, fmt.Sprintf("[%d]", i), "")
			if err != nil {
				return Set{}, err
			}
			vs = append(vs, v)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(root.Content); i += 2 {
			k := root.Content[i]
			v, err := p.variant(root.Content[i+1], k.Value, k.Value)
			if err != nil {
				return Set{}, err
			}
			vs = append(vs, v)
		}
	default:
		return Set{}, p.fail(root, "", "is not a list or a mapping of variants")
	}
	if len(vs) == 0 {
		return Set{}, p.fail(root, "", "has no variant")
	}
	return NewSet(vs), p.unique(root, vs)
}

// parser reads one file's variants.
type parser struct{ path string }

// fail is E-EVL-002 at n's place, field naming what failed.
func (p parser) fail(n *yaml.Node, field, format string, args ...any) *errcode.Error {
	where := p.path
	if n.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", p.path, n.Line, n.Column)
	}
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return errcode.New(errcode.Variants, "%s", msg).At(where).
		WithHint("a variant is a mapping of %s (docs/variants.md)", keys)
}

// unique refuses a name given twice.
func (p parser) unique(root *yaml.Node, vs []Variant) error {
	seen := map[string]int{}
	for i, v := range vs {
		if j, ok := seen[v.Name]; ok {
			return p.fail(root, fmt.Sprintf("[%d].name", i), "%q is the name of variant [%d] too", v.Name, j)
		}
		seen[v.Name] = i
	}
	return nil
}

// variant reads one variant's mapping; at names it in messages, and name
// is its key in a mapping of variants ("" in a list, where name: is
// required).
func (p parser) variant(n *yaml.Node, at, name string) (Variant, error) {
	if n.Kind != yaml.MappingNode {
		return Variant{}, p.fail(n, at, "is not a mapping of %s", keys)
	}
	v := Variant{Name: name}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if err := p.field(&v, k.Value, val, at+"."+k.Value); err != nil {
			return Variant{}, err
		}
	}
	if name != "" && v.Name != name {
		return Variant{}, p.fail(n, at+".name", "is %q under the key %q", v.Name, name)
	}
	if strings.TrimSpace(v.Name) == "" {
		return Variant{}, p.fail(n, at+".name", "is missing or empty")
	}
	if err := checkName(v.Name); err != nil {
		return Variant{}, p.fail(n, at+".name", "%v", err)
	}
	return v, nil
}

// field sets one key of v from val.
func (p parser) field(v *Variant, key string, val *yaml.Node, at string) error {
	var err error
	switch key {
	case "name":
		v.Name, err = p.str(val, at)
	case "model":
		v.Model, err = p.str(val, at)
	case "endpoint", "base_url":
		if v.Endpoint, err = p.str(val, at); err == nil {
			err = p.endpoint(val, at, v.Endpoint)
		}
	case "api", "provider":
		if v.API, err = p.str(val, at); err == nil {
			v.API = strings.ToLower(v.API)
			if v.API != "openai" && v.API != "anthropic" {
				err = p.fail(val, at, "is %q, want openai or anthropic", val.Value)
			}
		}
	case "config":
		v.Config, err = p.config(val, at)
	case "max_turns":
		v.MaxTurns, err = p.positive(val, at)
	case "max_tokens":
		v.MaxTokens, err = p.positive(val, at)
	default:
		return p.fail(val, at, "unknown key %q", key)
	}
	return err
}

func (p parser) str(n *yaml.Node, at string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || strings.TrimSpace(n.Value) == "" {
		return "", p.fail(n, at, "must be a non-empty string")
	}
	return strings.TrimSpace(n.Value), nil
}

func (p parser) positive(n *yaml.Node, at string) (int, error) {
	i, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || i < 1 || i > 1<<31-1 {
		return 0, p.fail(n, at, "must be a positive integer, got %q", n.Value)
	}
	return i, nil
}

// endpoint applies the manifest's rule for inference.endpoint: https, or
// plain http to a loopback host.
func (p parser) endpoint(n *yaml.Node, at, s string) error {
	if msg := capsule.CheckEndpoint(s); msg != "" {
		return p.fail(n, at, "%s", msg)
	}
	return nil
}

// config is a mapping as a compact JSON object.
func (p parser) config(n *yaml.Node, at string) (json.RawMessage, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.fail(n, at, "must be a mapping (it is merged over inference.driver.config)")
	}
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return nil, p.fail(n, at, "%v", err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, p.fail(n, at, "cannot be written as JSON: %v", err)
	}
	return b, nil
}
