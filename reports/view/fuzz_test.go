package view

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRenderText: whatever a model or a tool wrote, a text renders as
// valid UTF-8 with no markup but the template's own and no hidden
// character.
func FuzzRenderText(f *testing.F) {
	for _, s := range []string{
		"<script>alert(1)</script>", "</pre><img src=x onerror=alert(1)>", "\u202eevil\x07", "\xff\xfe",
		strings.Repeat("long line\n", 200), "a & b \" ' ` <!-- -->", "]]><![CDATA[", "\u2066\u200b\ufeff",
	} {
		f.Add(s)
	}
	own := strings.NewReplacer("<details>", "", "</details>", "", "<summary>", "", "</summary>", "",
		"<pre>", "", "</pre>", "", `<p class="cut">`, "", "</p>", "")
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		if err := pages.ExecuteTemplate(&buf, "text", newBudget().text(s, "")); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !utf8.ValidString(out) {
			t.Errorf("not UTF-8: %q", out)
		}
		if rest := own.Replace(out); strings.ContainsAny(rest, "<>") {
			t.Errorf("markup from the text: %q", rest)
		}
		for _, r := range out {
			if hidden(r) {
				t.Errorf("hidden character U+%04X in %q", r, out)
			}
		}
	})
}
