package capsule

import (
	"bytes"
	"encoding/json"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Execution is an artifact's packaging type: what kind of payload its archive
// carries (murmur's registry_runtime).
type Execution string

// The packaging types.
const (
	ExecutionWasm   Execution = "wasm"   // a root *.wasm component
	ExecutionNative Execution = "native" // bin/<name>
	ExecutionStatic Execution = "static" // skill.md
)

// DefaultInputSchema is a tool's parameters schema when it declares none.
const DefaultInputSchema = `{"type":"object","properties":{}}`

// ArtifactManifest is the manifest packed inside a .mur.zip (§3.1). It is
// typed more strictly than the capsule manifest: name, version and runtime
// must be YAML strings.
type ArtifactManifest struct {
	Name           string
	Version        string
	Runtime        string    // role as written: tool|driver|hook|skill (legacy wasm|native)
	Implementation string    // "native" when declared so, else "wasm"
	Execution      Execution // declared packaging type; "" when absent
	RequiresFiles  []string  // default ["skill.md"] for skills, [] otherwise
	Description    string
	Tags           []string
	// InputSchema is the tool's JSON-schema parameters as compact JSON, from
	// `input_schema` (or legacy `input`), given as a JSON string or a YAML
	// mapping. Skills, and values that are not a JSON object source, get
	// DefaultInputSchema.
	InputSchema json.RawMessage
	// UnknownKeys are the keys no field of the format has (see Manifest).
	UnknownKeys []UnknownKey
}

// Role returns the artifact's role; the legacy wasm and native spellings
// mean a tool.
func (m *ArtifactManifest) Role() Runtime {
	switch m.Runtime {
	case "wasm", "native":
		return RuntimeTool
	}
	return Runtime(m.Runtime)
}

// Packaging returns the artifact's packaging type: the declared execution,
// else static for a skill, native for a native tool, wasm for the rest.
func (m *ArtifactManifest) Packaging() Execution {
	switch {
	case m.Execution != "":
		return m.Execution
	case m.Runtime == "skill":
		return ExecutionStatic
	case m.Runtime == "tool" && m.Implementation == "native":
		return ExecutionNative
	}
	return ExecutionWasm
}

// ParseArtifactManifest parses an artifact's own manifest; where names it in
// errors (a path, or "name@version:murmur.yaml" inside an archive). Errors:
// E-MAN-002 for bad YAML, E-MAN-001 for a missing name, version or runtime,
// E-MAN-003 for a field of the wrong type or a bad execution value.
func ParseArtifactManifest(where string, data []byte) (*ArtifactManifest, error) {
	d := &decoder{file: where, code: errcode.ManifestSyntax, prefix: "YAML syntax error: "}
	root, err := d.document(data)
	if err != nil {
		return nil, err
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, wrongType(d, root, "<root>", "mapping")
	}
	m, err := d.mapping(root, "", "a mapping")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := deref(root.Content[i]); k != nil && k.Kind == yaml.ScalarNode {
			if seen[k.Value] {
				return nil, d.shape(k, "", "duplicate entry with key %q", k.Value)
			}
			seen[k.Value] = true
		}
	}
	am := &ArtifactManifest{Implementation: "wasm"}
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &am.Name}, {"version", &am.Version}, {"runtime", &am.Runtime}} {
		v, ok := m.raw(f.key)
		if !ok {
			return nil, errcode.New(errcode.ManifestMissingField, "missing required field '%s'", f.key).At(d.where(root))
		}
		if s, isStr := yamlString(v); isStr {
			*f.dst = s
		} else {
			return nil, wrongType(d, deref(v), f.key, "string")
		}
	}
	if s, ok := yamlString(m.value("implementation")); ok && s == "native" {
		am.Implementation = "native"
	}
	if v, ok := m.raw("execution"); ok {
		s, isStr := yamlString(v)
		if !isStr {
			return nil, wrongType(d, deref(v), "execution", "string")
		}
		switch e := Execution(strings.ToLower(s)); e {
		case ExecutionWasm, ExecutionNative, ExecutionStatic:
			am.Execution = e
		default:
			return nil, errcode.New(errcode.ManifestInvalid, "field 'execution' has invalid type (expected one of: wasm, native, static, got %s)", s).At(d.where(deref(v)))
		}
	}
	if am.RequiresFiles, err = requiresFiles(d, m, am.Runtime); err != nil {
		return nil, err
	}
	am.Description, _ = yamlString(m.value("description"))
	if tags := deref(m.value("tags")); tags != nil && tags.Kind == yaml.SequenceNode {
		for _, t := range tags.Content {
			if s, ok := yamlString(t); ok {
				am.Tags = append(am.Tags, s)
			}
		}
	}
	// Fields other readers take from the manifest text (hooks), and the
	// capabilities murmur documents as ignored here.
	for _, k := range []string{"output_schema", "binding", "execution_mode", "commit_policy", "capabilities", "input_schema", "input"} {
		m.has(k)
	}
	am.InputSchema = json.RawMessage(DefaultInputSchema)
	if am.Runtime != "skill" {
		schema, ok := m.raw("input_schema")
		if !ok {
			schema = m.value("input")
		}
		if js := inputSchema(deref(schema)); js != nil {
			am.InputSchema = js
		}
	}
	am.UnknownKeys = d.unknownKeys()
	return am, nil
}

func requiresFiles(d *decoder, m *mapping, runtime string) ([]string, error) {
	v, ok := m.raw("requires_files")
	if !ok {
		if runtime == "skill" {
			return []string{"skill.md"}, nil
		}
		return []string{}, nil
	}
	v = deref(v)
	if v == nil || v.Kind != yaml.SequenceNode {
		return nil, wrongType(d, v, "requires_files", "sequence of strings")
	}
	out := make([]string, 0, len(v.Content))
	for _, e := range v.Content {
		s, ok := yamlString(e)
		if !ok {
			return nil, wrongType(d, deref(e), "requires_files", "sequence of strings")
		}
		out = append(out, s)
	}
	return out, nil
}

// inputSchema returns the schema as compact JSON, or nil to use the default.
func inputSchema(n *yaml.Node) json.RawMessage {
	if n == nil {
		return nil
	}
	if s, ok := yamlString(n); ok {
		var buf bytes.Buffer
		if !strings.HasPrefix(strings.TrimSpace(s), "{") || json.Compact(&buf, []byte(s)) != nil {
			return nil
		}
		return buf.Bytes()
	}
	if n.Kind == yaml.MappingNode {
		if js, err := yamlToJSON(n); err == nil {
			return js
		}
	}
	return nil
}

func wrongType(d *decoder, n *yaml.Node, field, expected string) error {
	return errcode.New(errcode.ManifestInvalid, "field '%s' has invalid type (expected %s, got %s)",
		field, expected, valueType(n)).At(d.where(n))
}

// yamlString returns n's text when serde_yaml would read it as a string.
func yamlString(n *yaml.Node) (string, bool) {
	n = deref(n)
	if n == nil || valueType(n) != "string" {
		return "", false
	}
	return n.Value, true
}

// valueType names n's type the way murmur's artifact-manifest errors do.
func valueType(n *yaml.Node) string {
	if n == nil {
		return "null"
	}
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.MappingNode:
		return "mapping"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!bool":
			return "boolean"
		case "!!int", "!!float":
			return "number"
		case "!!str", "!!timestamp":
			return "string"
		}
		return "tagged"
	}
	return "null"
}
