package replay

import (
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
)

func TestCaseFileName(t *testing.T) {
	tests := []struct {
		c    inference.Case
		want string // the name, or its prefix when it ends in "sha256-"
	}{
		{inference.Case{ID: "calc-multiply"}, "calc-multiply.jsonl"},
		{inference.Case{ID: "calc-multiply", Variant: "gpt-5-mini"}, "calc-multiply@gpt-5-mini.jsonl"},
		{inference.Case{ID: "calc-multiply", Variant: "openai/gpt-5"}, "sha256-"},
		{inference.Case{ID: "a@b", Variant: "c"}, "sha256-"},
		{inference.Case{ID: "a", Variant: strings.Repeat("v", 250)}, "sha256-"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		got := CaseFileName(tt.c)
		if got != tt.want && !(strings.HasSuffix(tt.want, "-") && strings.HasPrefix(got, tt.want)) {
			t.Errorf("CaseFileName(%q, %q) = %q, want %q", tt.c.ID, tt.c.Variant, got, tt.want)
		}
		if seen[got] {
			t.Errorf("CaseFileName(%q, %q) = %q: another case's too", tt.c.ID, tt.c.Variant, got)
		}
		seen[got] = true
	}
	if CaseFileName(inference.Case{ID: "a", Variant: "b/c"}) == CaseFileName(inference.Case{ID: "a/b", Variant: "c"}) {
		t.Error("two (case, variant) pairs share a hashed name")
	}
}
