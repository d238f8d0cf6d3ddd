package pricing

import (
	"errors"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, file string
		where      string // the file:line:col the first error names
		msg        string // a part of the first error's message
	}{
		{"euros", "currency: EUR\nmodels: {a: {input: 1, output: 1}}\n", "p.yaml:1:11", "only USD"},
		{"bad date", "date: tomorrow\nmodels: {a: {input: 1, output: 1}}\n", "p.yaml:1:7", "not a date"},
		{"unknown top key", "modles: {a: {input: 1, output: 1}}\n", "p.yaml:1:1", `unknown key "modles"`},
		{"no models", "currency: USD\n", "p.yaml:1:1", `no "models"`},
		{"empty models", "models: {}\n", "p.yaml:1:1", "names no model"},
		{"unknown field", "models:\n  a: {input: 1, output: 1, cache: 2}\n", "p.yaml:2:28", `unknown field "cache"`},
		{"negative", "models:\n  a: {input: -1, output: 1}\n", "p.yaml:2:14", "non-negative"},
		{"a string price", "models:\n  a: {input: \"1\", output: 1}\n", "p.yaml:2:14", "not a number"},
		{"a word price", "models:\n  a: {input: cheap, output: 1}\n", "p.yaml:2:14", "not a number"},
		{"infinite", "models:\n  a: {input: .inf, output: 1}\n", "p.yaml:2:14", "finite"},
		{"missing output", "models:\n  a: {input: 1}\n", "p.yaml:2:6", `missing "output"`},
		{"bad glob", "models:\n  \"gpt-[45]\": {input: 1, output: 1}\n", "p.yaml:2:3", "bad glob"},
		{"space in name", "models:\n  \"gpt 5\": {input: 1, output: 1}\n", "p.yaml:2:3", "white space"},
		{"twice", "models:\n  a: {input: 1, output: 1}\n  a: {input: 2, output: 2}\n", "p.yaml:3:3", "twice (first on line 2)"},
		{"not a mapping", "- a\n", "p.yaml:1:1", "not a mapping"},
		{"price not a mapping", "models:\n  a: 3\n", "p.yaml:2:6", "not a mapping"},
		{"not yaml", "models: {a: [\n", "p.yaml", "not YAML"},
		{"empty", "", "p.yaml", "empty file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("p.yaml", strings.NewReader(tt.file))
			if code := errcode.Code(err); code != errcode.Prices {
				t.Fatalf("code %q, want %q: %v", code, errcode.Prices, err)
			}
			var first *errcode.Error
			if !errors.As(err, &first) {
				t.Fatalf("not an errcode.Error: %v", err)
			}
			if first.Where != tt.where || !strings.Contains(first.Error(), tt.msg) || first.Hint == "" {
				t.Errorf("error %q at %q (hint %q), want %q at %q with a hint", first.Error(), first.Where, first.Hint, tt.msg, tt.where)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name, file string
		model      string
		want       Price
		date       string
	}{
		{"the issue's example", "currency: USD\ndate: 2026-12-01\nmodels:\n  \"gpt-5*\": {input: 1.25, output: 10.00, cached_input: 0.125}\n",
			"gpt-5-mini", Price{1.25, 10, 0.125}, "2026-12-01"},
		{"JSON", `{"currency": "usd", "models": {"m": {"input": 3, "output": 15}}}`, "m", Price{Input: 3, Output: 15}, ""},
		{"an alias", "models:\n  a: &p {input: 1, output: 2}\n  b: *p\n", "b", Price{Input: 1, Output: 2}, ""},
		{"free", "models:\n  local: {input: 0, output: 0}\n", "local", Price{}, ""},
		{"a catch-all", "models:\n  \"*\": {input: 1e-1, output: 2}\n", "anything", Price{Input: 0.1, Output: 2}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := Parse("p.yaml", strings.NewReader(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := tab.Lookup(tt.model)
			if !ok || got != tt.want || tab.Date != tt.date || tab.Currency != Currency {
				t.Errorf("Lookup(%q) = %+v, %t, date %q, want %+v, date %q", tt.model, got, ok, tab.Date, tt.want, tt.date)
			}
		})
	}
}

func TestParseReportsEveryError(t *testing.T) {
	_, err := Parse("p.yaml", strings.NewReader("currency: EUR\nmodels:\n  a: {input: -1, output: x}\n"))
	joined, ok := err.(interface{ Unwrap() []error })
	if n := len(joined.Unwrap()); !ok || n != 3 {
		t.Errorf("%d errors, want 3: %v", n, err)
	}
}

func TestOverBuiltin(t *testing.T) {
	file, err := Parse("p.yaml", strings.NewReader("date: 2026-12-01\nmodels:\n  gpt-4o: {input: 9, output: 9}\n  my-model: {input: 1, output: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tab := file.Over(Builtin())
	tests := []struct {
		model  string
		want   float64
		source string
	}{
		{"gpt-4o", 9, "p.yaml:3"},         // the file overrides the built-in entry
		{"my-model", 1, "p.yaml:4"},       // and extends the table
		{"gpt-4o-mini", 0.15, "built-in"}, // the rest stays
	}
	for _, tt := range tests {
		e, ok := tab.Find(tt.model)
		if !ok || e.Price.Input != tt.want || e.Source != tt.source {
			t.Errorf("Find(%q) = %+v, %t, want input %v from %s", tt.model, e, ok, tt.want, tt.source)
		}
	}
	if tab.Date != "2026-12-01" {
		t.Errorf("date %q, want the file's", tab.Date)
	}
}

func TestBuiltin(t *testing.T) {
	tab := Builtin()
	tests := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-5", Price{1.25, 10, 0.125}, true},
		{"gpt-5-2025-08-07", Price{1.25, 10, 0.125}, true},
		{"gpt-5-mini-2025-08-07", Price{0.25, 2, 0.025}, true},
		{"gpt-5-pro", Price{Input: 15, Output: 120}, true},
		{"gpt-4o-2024-05-13", Price{Input: 5, Output: 15}, true},
		{"gpt-4.1-nano", Price{0.10, 0.40, 0.025}, true},
		{"o4-mini-2025-04-16", Price{1.10, 4.40, 0.275}, true},
		{"claude-sonnet-4-5-20250929", Price{3, 15, 0.30}, true},
		{"claude-opus-4-20250514", Price{15, 75, 1.50}, true},
		{"claude-opus-4-5-20251101", Price{5, 25, 0.50}, true},
		{"claude-haiku-4-5-20251001", Price{1, 5, 0.10}, true},
		{"gpt-5.2", Price{}, false},           // a later model is not priced by gpt-5's entry
		{"gpt-5-codex", Price{}, false},       // nor a sibling
		{"claude-sonnet-4-6", Price{}, false}, // nor a later Claude
		{"mock-model", Price{}, false},
	}
	for _, tt := range tests {
		got, ok := tab.Lookup(tt.model)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Lookup(%q) = %+v, %t, want %+v, %t", tt.model, got, ok, tt.want, tt.ok)
		}
	}
	if tab.Date != BuiltinDate || len(tab.Entries()) != len(builtinPrices()) {
		t.Errorf("date %q, %d entries, want %q, %d", tab.Date, len(tab.Entries()), BuiltinDate, len(builtinPrices()))
	}
}
