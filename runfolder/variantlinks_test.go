package runfolder

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestVariantLinkName(t *testing.T) {
	tests := []struct{ id, variant, want string }{
		{"calc-multiply", "", "calc-multiply.e1.a2"},
		{"calc-multiply", "gpt-5-mini", "calc-multiply@gpt-5-mini.e1.a2"},
		{"notes/round trip", "openai/gpt-5", "notes%2Fround%20trip@openai%2Fgpt-5.e1.a2"},
		{"a@b", "c", "a%40b@c.e1.a2"},
	}
	for _, tt := range tests {
		if got := VariantLinkName(tt.id, tt.variant, 1, 2); got != tt.want {
			t.Errorf("VariantLinkName(%q, %q) = %q, want %q", tt.id, tt.variant, got, tt.want)
		}
	}
	long := VariantLinkName(strings.Repeat("x", 300), strings.Repeat("v", 128), 1, 1)
	if len(long) > 255 || filepath.Base(long) != long {
		t.Errorf("a long id and variant: %d bytes, %q", len(long), long)
	}
	if VariantLinkName("a", "b", 1, 1) == VariantLinkName("a", "c", 1, 1) {
		t.Error("two variants share a link name")
	}
	out := t.TempDir()
	session := filepath.Join(out, SessionsDir, "ses_1")
	if err := LinkCase(out, "c", "m", 1, 1, session); err != nil {
		t.Fatal(err)
	}
	UnlinkCase(out, "c", "m", 1, 1)
	if _, ok := SessionFolder(out, "c", "m", 1, 1, ""); ok {
		t.Error("the link outlived UnlinkCase")
	}
}
