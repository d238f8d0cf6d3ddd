package termtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFieldAndText(t *testing.T) {
	tests := []struct {
		in, field, text string
	}{
		{"calc-multiply", "calc-multiply", "calc-multiply"},
		{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
		{"a\x1b[2Jb", `a\u001b[2Jb`, `a\u001b[2Jb`},
		{"ok\rpassed", `ok\rpassed`, `ok\rpassed`},
		{"two\nlines\tand tab", `two\nlines\tand tab`, "two\nlines\tand tab"},
		{"bell\a nul\x00 del\x7f", `bell\u0007 nul\u0000 del\u007f`, `bell\u0007 nul\u0000 del\u007f`},
		{"c1 csi \u009b31m", `c1 csi \u009b31m`, `c1 csi \u009b31m`},
		{"osc \x1b]52;c;aGk=\x07", `osc \u001b]52;c;aGk=\u0007`, `osc \u001b]52;c;aGk=\u0007`},
		{"rlo \u202egnp.exe", `rlo \u202egnp.exe`, `rlo \u202egnp.exe`},
		{"isolates \u2066x\u2069 marks \u200e\u200f\u061c", `isolates \u2066x\u2069 marks \u200e\u200f\u061c`, `isolates \u2066x\u2069 marks \u200e\u200f\u061c`},
		{"bad \xff\x9b utf8", `bad \xff\x9b utf8`, `bad \xff\x9b utf8`},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := Field(tt.in); got != tt.field {
			t.Errorf("Field(%q) = %q, want %q", tt.in, got, tt.field)
		}
		if got := Text(tt.in); got != tt.text {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
}

// TestWriterKeepsJSONValid: JSON written through a Writer decodes to the
// same value, with no control byte left on the wire.
func TestWriterKeepsJSONValid(t *testing.T) {
	v := map[string]string{"case_id": "x\x1b[2J\r\u009b\u202e\x7fy", "plain": "ok"}
	var buf bytes.Buffer
	enc := json.NewEncoder(NewWriter(&buf))
	enc.SetIndent("", "\t")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if !clean(buf.String(), true) {
		t.Fatalf("output still has controls: %q", buf.String())
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["case_id"] != v["case_id"] {
		t.Errorf("decoded %q, %v; want %q", back["case_id"], err, v["case_id"])
	}
}

func TestWriterReturnsInputLength(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	in := []byte("a\x1bb\n")
	if n, err := w.Write(in); n != len(in) || err != nil {
		t.Errorf("Write = %d, %v; want %d, nil", n, err, len(in))
	}
	if buf.String() != `a\u001bb`+"\n" {
		t.Errorf("wrote %q", buf.String())
	}
	if Raw(w) != &buf || Raw(&buf) != &buf {
		t.Error("Raw does not unwrap")
	}
}

// FuzzField: the result never holds a control character or invalid UTF-8.
func FuzzField(f *testing.F) {
	for _, s := range []string{"a", "\x1b[2J", "\r\n", "\u009b", "\u202e", "\xff", "日本\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Field(s), Text(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("escape(%q) = %q: not UTF-8", s, out)
			}
			for _, r := range out {
				if unsafe(r, true) {
					t.Fatalf("escape(%q) = %q keeps %U", s, out, r)
				}
			}
		}
		if strings.ContainsAny(Field(s), "\n\t") {
			t.Fatalf("Field(%q) keeps a newline or tab", s)
		}
	})
}
