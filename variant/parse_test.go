package variant

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []Variant
	}{
		{"list", "- {name: a, model: m1}\n- name: b\n  model: m2\n  max_turns: 3\n",
			[]Variant{{Name: "a", Model: "m1"}, {Name: "b", Model: "m2", MaxTurns: 3}}},
		{"mapping", "small: {model: m1, base_url: 'http://127.0.0.1:9/v1'}\nbig: {provider: Anthropic, max_tokens: 100}\n",
			[]Variant{{Name: "small", Model: "m1", Endpoint: "http://127.0.0.1:9/v1"}, {Name: "big", API: "anthropic", MaxTokens: 100}}},
		{"json", `[{"name": "x", "config": {"temperature": 0, "b": [1]}}]`,
			[]Variant{{Name: "x", Config: json.RawMessage(`{"b":[1],"temperature":0}`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("v.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.All(), tt.want); diff != "" {
				t.Errorf("Parse: got -, want +\n%s", diff)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, yaml string
		where      string // the error's Where
		field      string // in the message
	}{
		{"unknown key", "- name: a\n  modle: x\n", "v.yaml:2:10", "[0].modle"},
		{"bad max_turns", "- name: a\n  max_turns: -2\n", "v.yaml:2:14", "[0].max_turns"},
		{"max_turns not a number", "a: {max_turns: many}\n", "v.yaml:1:16", "a.max_turns"},
		{"bad api", "- {name: a, api: gemini}\n", "v.yaml:1:18", "[0].api"},
		{"plain http remote", "- {name: a, endpoint: 'http://example.com/v1'}\n", "v.yaml:1:23", "[0].endpoint"},
		{"no name", "- {model: m}\n", "v.yaml:1:3", "[0].name"},
		{"duplicate", "- {name: a}\n- {name: a}\n", "v.yaml:1:1", "[1].name"},
		{"config not a mapping", "- {name: a, config: 3}\n", "v.yaml:1:21", "[0].config"},
		{"scalar", "hello\n", "v.yaml:1:1", ""},
		{"empty", "", "v.yaml", ""},
		{"empty list", "[]\n", "v.yaml:1:1", ""},
		{"not yaml", "- [\n", "", ""},
		{"name differs from key", "a: {name: b}\n", "v.yaml:1:4", "a.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("v.yaml", []byte(tt.yaml))
			if got := errcode.Code(err); got != errcode.Variants {
				t.Fatalf("Parse: code %q (%v), want %s", got, err, errcode.Variants)
			}
			var e *errcode.Error
			if !asError(err, &e) {
				t.Fatalf("Parse: %T", err)
			}
			if tt.where != "" && e.Where != tt.where {
				t.Errorf("Parse: where %q, want %q (%v)", e.Where, tt.where, err)
			}
			if !strings.Contains(e.Msg, tt.field) {
				t.Errorf("Parse: message %q does not name %q", e.Msg, tt.field)
			}
			if e.Hint == "" {
				t.Errorf("Parse: no hint for %v", err)
			}
		})
	}
}

func asError(err error, e **errcode.Error) bool {
	ce, ok := err.(*errcode.Error)
	*e = ce
	return ok
}

func TestFromModels(t *testing.T) {
	s, err := FromModels(" a ,b/c")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.All(), []Variant{{Name: "a", Model: "a"}, {Name: "b/c", Model: "b/c"}}); diff != "" {
		t.Errorf("FromModels: got -, want +\n%s", diff)
	}
	for _, bad := range []string{"", "a,,b", "a,a", "a\tb"} {
		if _, err := FromModels(bad); err == nil {
			t.Errorf("FromModels(%q) = nil error", bad)
		}
	}
}

func TestNamesAndDigest(t *testing.T) {
	var none Set
	if got := none.Names(); len(got) != 1 || got[0] != "" {
		t.Errorf("Names of no variant = %q, want one empty name", got)
	}
	if none.Digest() != "" {
		t.Errorf("Digest of no variant = %q, want empty", none.Digest())
	}
	a, _ := FromModels("x,y")
	b, _ := FromModels("y,x")
	if a.Digest() == b.Digest() || a.Digest() == "" {
		t.Errorf("Digest: %q and %q for two orders", a.Digest(), b.Digest())
	}
}

func FuzzParse(f *testing.F) {
	f.Add("- {name: a, model: m, max_turns: 3, config: {x: 1}}\n")
	f.Add("a: {endpoint: 'https://x/v1', api: openai}\n")
	f.Add("[{\"name\": \"a\"}]")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse("f.yaml", []byte(src))
		if err != nil {
			if errcode.Code(err) != errcode.Variants {
				t.Fatalf("Parse(%q): code %q: %v", src, errcode.Code(err), err)
			}
			return
		}
		seen := map[string]bool{}
		for _, v := range s.All() {
			if v.Name == "" || seen[v.Name] || checkName(v.Name) != nil {
				t.Fatalf("Parse(%q): bad or duplicate name %q", src, v.Name)
			}
			seen[v.Name] = true
			if v.Config != nil && !json.Valid(v.Config) {
				t.Fatalf("Parse(%q): config %q is not JSON", src, v.Config)
			}
		}
	})
}
