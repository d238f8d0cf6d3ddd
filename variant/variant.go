// Package variant is what one run compares: named variants of the
// capsule's inference block (the model, the endpoint, the wire API, the
// driver's config, max_turns), each run on every selected case. --models
// A,B makes one variant per model, named after it; --variants FILE reads
// them from YAML (parse.go). A run without either has no variant and runs
// the manifest as it is.
//
// A Set is built once per run and shared read-only.
package variant

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Variant is one named set of overrides of the manifest's inference block;
// a field at its zero value keeps the manifest's.
type Variant struct {
	Name     string
	Model    string
	Endpoint string
	// API is driver.config.api: "openai" or "anthropic" (which wire API
	// the built-in provider speaks).
	API string
	// Config is a JSON object merged over the manifest's driver.config,
	// key by key (the variant's keys win); nil for none.
	Config    json.RawMessage
	MaxTurns  int
	MaxTokens int
}

// Set is a run's variants in the order they were given; empty for a run
// without --models or --variants.
type Set struct {
	list []Variant
}

// NewSet returns the set of vs, in order; the names must be unique (the
// parsers check them).
func NewSet(vs []Variant) Set { return Set{list: vs} }

// Len is how many variants the set has.
func (s Set) Len() int { return len(s.list) }

// All returns the variants in order. The slice is the set's: read only.
func (s Set) All() []Variant { return s.list }

// Names returns the variants' names in order, or one "" for an empty set:
// a run's jobs are planned once per name.
func (s Set) Names() []string {
	if len(s.list) == 0 {
		return []string{""}
	}
	out := make([]string, len(s.list))
	for i, v := range s.list {
		out[i] = v.Name
	}
	return out
}

// Lookup returns the variant named name.
func (s Set) Lookup(name string) (Variant, bool) {
	for _, v := range s.list {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// Digest is the set as the run's fingerprint holds it: "" for no variant,
// otherwise a SHA-256 of the variants in order, so a resume with other
// variants is refused and says so.
func (s Set) Digest() string {
	if len(s.list) == 0 {
		return ""
	}
	b, err := json.Marshal(s.list)
	if err != nil { // strings, ints and valid JSON always encode
		return "unencodable"
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Apply returns a copy of inf with the variant's overrides; inf is not
// changed (the manifest is shared by every case). A variant that sets what
// a transport: process capsule has no use for (an endpoint, an API, a
// driver config) is a usage error.
func (v Variant) Apply(inf *capsule.Inference) (*capsule.Inference, error) {
	out := *inf
	if inf.Transport == capsule.TransportProcess && (v.Endpoint != "" || v.API != "" || v.Config != nil) {
		return nil, errcode.New(errcode.Variants, "variant %q sets endpoint, api or config, and the capsule's transport is process", v.Name).
			WithHint("a process capsule's CLI takes only model and max_turns from a variant")
	}
	if v.Model != "" {
		out.Model = v.Model
	}
	if v.Endpoint != "" {
		out.Endpoint = v.Endpoint
	}
	if v.MaxTurns > 0 {
		out.MaxTurns = uint32(v.MaxTurns)
	}
	if v.MaxTokens > 0 {
		out.MaxTokens = uint32(v.MaxTokens)
	}
	if v.Config != nil || v.API != "" {
		cfg, err := mergeConfig(inf.DriverConfig, v.Config, v.API)
		if err != nil {
			return nil, errcode.Wrap(errcode.Variants, err, "variant %q: merge its config over inference.driver.config", v.Name)
		}
		out.DriverConfig = cfg
	}
	return &out, nil
}

// mergeConfig is base with over's keys set over it, and api as "api" when
// given: compact JSON, keys sorted.
func mergeConfig(base, over json.RawMessage, api string) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(base)) > 0 && string(bytes.TrimSpace(base)) != "null" {
		if err := json.Unmarshal(base, &m); err != nil {
			return nil, err
		}
	}
	if over != nil {
		var o map[string]json.RawMessage
		if err := json.Unmarshal(over, &o); err != nil {
			return nil, err
		}
		for k, val := range o {
			m[k] = val
		}
	}
	if api != "" {
		b, _ := json.Marshal(api)
		m["api"] = b
	}
	return json.Marshal(m)
}

// FromModels is --models: one variant per model, named after it, in the
// order given. Blank entries, and a model given twice, are usage errors.
func FromModels(list string) (Set, error) {
	var vs []Variant
	seen := map[string]bool{}
	for _, m := range strings.Split(list, ",") {
		m = strings.TrimSpace(m)
		switch {
		case m == "":
			return Set{}, errcode.New(errcode.Usage, "--models %q: an empty model name", list).
				WithHint("give model names separated by commas: --models gpt-5-mini,claude-sonnet-4-5")
		case seen[m]:
			return Set{}, errcode.New(errcode.Usage, "--models %q: model %q is given twice", list, m)
		}
		if err := checkName(m); err != nil {
			return Set{}, errcode.Wrap(errcode.Usage, err, "--models %q", list)
		}
		seen[m] = true
		vs = append(vs, Variant{Name: m, Model: m})
	}
	return NewSet(vs), nil
}

// maxName bounds a variant's name: it is a column value, part of a link's
// file name and of a recording's.
const maxName = 128

// checkName refuses a name no column, link or file name should carry.
func checkName(name string) error {
	if len(name) > maxName {
		return errcode.New(errcode.Variants, "variant name %.20q... is longer than %d bytes", name, maxName)
	}
	for _, r := range name {
		if r < ' ' || r == 0x7f {
			return errcode.New(errcode.Variants, "variant name %q has a control character", name)
		}
	}
	return nil
}
