package pricing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Bounds of a --prices file, read as untrusted input.
const (
	MaxFileBytes   = 1 << 20 // the whole file
	maxParseErrors = 20      // bad fields listed before "... and N more"
)

// pricesHint shows a prices file; every field error ends with it.
const pricesHint = `a prices file is YAML (or JSON): currency: USD, date: 2026-12-01, ` +
	`models: {"gpt-5*": {input: 1.25, output: 10.00, cached_input: 0.125}}, prices in USD per million tokens`

// Load reads the prices file at path (Parse) and lays it over the
// built-in table: a model the file names is priced by the file, any
// other by Builtin. A file that cannot be read is E-IO-001 or E-IO-003;
// a bad file is E-EVL-008 at file:line.
func Load(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errcode.Wrap(errcode.IONotFound, err, "no prices file %s", path).
				WithHint("give a YAML prices file to --prices, or --prices off to compute no cost")
		}
		return nil, errcode.Wrap(errcode.IO, err, "read prices file %s", path)
	}
	defer f.Close()
	t, err := Parse(path, f)
	if err != nil {
		return nil, err
	}
	return t.Over(Builtin()), nil
}

// Parse reads a prices file from r, name naming it in errors, into a
// table of its entries only. Keys are currency (USD, the default), date
// (YYYY-MM-DD) and models, a map from a model name or glob to {input,
// output, cached_input}: input and output required, each price a
// non-negative finite number. An unknown key, a bad value, a bad glob or
// a model named twice is an E-EVL-008 error at name:line; every one is
// reported, the first maxParseErrors of them.
func Parse(name string, r io.Reader) (*Table, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "read prices file").At(name)
	}
	if len(data) > MaxFileBytes {
		return nil, errcode.New(errcode.Prices, "file larger than %d MiB", MaxFileBytes>>20).At(name).
			WithHint("a prices file names a price per model or glob: a few hundred entries at most")
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errcode.New(errcode.Prices, "empty file").At(name).WithHint("%s", pricesHint)
		}
		return nil, errcode.Wrap(errcode.Prices, err, "not YAML").At(name).WithHint("%s", pricesHint)
	}
	p := &parser{name: name}
	t := p.document(&doc)
	if errs := p.result(); errs != nil {
		return nil, errs
	}
	return t, nil
}

// parser collects a file's errors while it reads on.
type parser struct {
	name string
	errs []error
	more int
}

func (p *parser) fail(n *yaml.Node, format string, args ...any) {
	if len(p.errs) >= maxParseErrors {
		p.more++
		return
	}
	p.errs = append(p.errs, errcode.New(errcode.Prices, format, args...).
		At(fmt.Sprintf("%s:%d:%d", p.name, n.Line, n.Column)).WithHint("%s", pricesHint))
}

func (p *parser) result() error {
	if p.more > 0 {
		p.errs = append(p.errs, errcode.New(errcode.Prices, "... and %d more errors", p.more).At(p.name))
	}
	return errors.Join(p.errs...)
}

// document reads the top-level mapping.
func (p *parser) document(doc *yaml.Node) *Table {
	top := doc
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = top.Content[0]
	}
	if top.Kind != yaml.MappingNode {
		p.fail(top, "the file is not a mapping of currency, date and models")
		return nil
	}
	date := ""
	var entries []Entry
	sawModels := false
	seen := map[string]bool{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], resolve(top.Content[i+1])
		if seen[k.Value] {
			p.fail(k, "%q given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "currency":
			p.currency(v)
		case "date":
			date = p.date(v)
		case "models":
			sawModels = true
			entries = p.models(v)
		default:
			p.fail(k, "unknown key %q (currency, date and models are read)", truncate(k.Value, 40))
		}
	}
	if !sawModels {
		p.fail(top, `no "models" key`)
	} else if len(entries) == 0 && len(p.errs) == 0 {
		p.fail(top, `"models" names no model`)
	}
	return newTable(p.name, date, entries)
}

// resolve follows an alias to the node it names (shared prices: &p, *p).
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func (p *parser) currency(v *yaml.Node) {
	if v.Kind != yaml.ScalarNode || !strings.EqualFold(strings.TrimSpace(v.Value), Currency) {
		p.fail(v, "currency %q: only USD is accepted (the cost columns are cost_usd)", truncate(v.Value, 20))
	}
}

func (p *parser) date(v *yaml.Node) string {
	d := strings.TrimSpace(v.Value)
	if _, err := time.Parse(time.DateOnly, d); v.Kind != yaml.ScalarNode || err != nil {
		p.fail(v, "date %q is not a date YYYY-MM-DD (the day the prices were read)", truncate(d, 40))
		return ""
	}
	return d
}

// models reads the models mapping.
func (p *parser) models(v *yaml.Node) []Entry {
	if v.Kind != yaml.MappingNode {
		p.fail(v, `"models" is not a mapping of model name or glob to {input, output, cached_input}`)
		return nil
	}
	var entries []Entry
	seen := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		name := k.Value
		if first, dup := seen[name]; dup {
			p.fail(k, "model %q given twice (first on line %d)", truncate(name, 60), first)
			continue
		}
		seen[name] = k.Line
		if !p.modelName(k) {
			continue
		}
		if price, ok := p.price(name, val); ok {
			entries = append(entries, Entry{Model: name, Price: price, Source: fmt.Sprintf("%s:%d", p.name, k.Line)})
		}
	}
	return entries
}

// modelName checks a model key: a non-blank name or glob of '*' and '?'
// over literal characters, no spaces, none of the reserved glob syntax.
func (p *parser) modelName(k *yaml.Node) bool {
	name := k.Value
	switch {
	case k.Kind != yaml.ScalarNode:
		p.fail(k, "a model key is not a name")
	case strings.TrimSpace(name) == "":
		p.fail(k, "a blank model name")
	case strings.ContainsAny(name, " \t\r\n"):
		p.fail(k, "model %q has white space: a model name or glob has none", truncate(name, 60))
	case strings.ContainsAny(name, reservedGlob):
		p.fail(k, "model %q is a bad glob: only '*' (any characters) and '?' (one character) are wildcards; [ ] { } \\ are refused", truncate(name, 60))
	default:
		return true
	}
	return false
}

// price reads {input, output, cached_input} of model.
func (p *parser) price(model string, v *yaml.Node) (Price, bool) {
	if v.Kind != yaml.MappingNode {
		p.fail(v, "model %q: the price is not a mapping {input, output, cached_input}", truncate(model, 60))
		return Price{}, false
	}
	var price Price
	fields := map[string]*float64{"input": &price.Input, "output": &price.Output, "cached_input": &price.CachedInput}
	set := map[string]bool{}
	ok := true
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		dst, known := fields[k.Value]
		switch {
		case !known:
			p.fail(k, "model %q: unknown field %q (input, output and cached_input are read)", truncate(model, 60), truncate(k.Value, 40))
			ok = false
		case set[k.Value]:
			p.fail(k, "model %q: %q given twice", truncate(model, 60), k.Value)
			ok = false
		default:
			set[k.Value] = true
			if !p.number(model, k.Value, val, dst) {
				ok = false
			}
		}
	}
	for _, f := range []string{"input", "output"} {
		if !set[f] {
			p.fail(v, "model %q: missing %q", truncate(model, 60), f)
			ok = false
		}
	}
	return price, ok
}

// number reads a price: a YAML int or float, finite, not negative.
func (p *parser) number(model, field string, v *yaml.Node, dst *float64) bool {
	var f float64
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || v.Decode(&f) != nil {
		p.fail(v, "model %q: %s %q is not a number (USD per million tokens)", truncate(model, 60), field, truncate(v.Value, 40))
		return false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		p.fail(v, "model %q: %s %s is not a non-negative finite number", truncate(model, 60), field, truncate(v.Value, 40))
		return false
	}
	*dst = f
	return true
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}
