// Package termtext makes text from elsewhere safe to print on a terminal.
// Case ids, error messages, a model server's Location header and a
// dataset's file names reach stdout and stderr; a control character among
// them is an instruction to the terminal, not text: ESC [2J clears the
// screen, \r rewrites a line, ESC ]52 writes the clipboard, a C1 CSI
// (U+009B) is ESC [ on some terminals, and the bidi overrides (U+202A–202E,
// U+2066–2069) make a line read differently from what it contains.
//
// Field escapes all of them, for one-line values; Text keeps \n and \t, for
// whole messages; Writer applies Text to everything written through it, and
// is what cmd puts around stdout and stderr. The escapes are JSON's (\n, \r,
// \t, \u001b), so JSON written through a Writer stays valid and means the
// same; a byte that is not UTF-8 becomes \xNN.
package termtext

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Field returns s with every control character escaped, \n and \t
// included.
func Field(s string) string { return escape(s, false) }

// Text returns s with every control character but \n and \t escaped.
func Text(s string) string { return escape(s, true) }

// unsafe reports whether r must not reach a terminal as is: C0 and C1
// controls, DEL, and the bidi controls. layout keeps \n and \t.
func unsafe(r rune, layout bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !layout
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// clean reports whether s needs no escaping; it is the fast path, which
// every line murmur-eval writes itself takes.
func clean(s string, layout bool) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 0x20 && b < 0x7f {
			continue
		}
		if b < 0x80 {
			if unsafe(rune(b), layout) {
				return false
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || unsafe(r, layout) {
			return false
		}
		i += n - 1
	}
	return true
}

func escape(s string, layout bool) string {
	if clean(s, layout) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case !unsafe(r, layout):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		default:
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		}
		i += n
	}
	return b.String()
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// Writer escapes, as Text does, everything written through it. Each Write
// is escaped on its own: write a multi-byte character in one call (fmt and
// io.WriteString do), or its bytes are escaped as not UTF-8.
type Writer struct{ w io.Writer }

// NewWriter returns a Writer around w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p escaped; it returns len(p) when the escaped text was
// written whole.
func (w *Writer) Write(p []byte) (int, error) {
	s := string(p)
	if clean(s, true) {
		return w.w.Write(p)
	}
	if _, err := io.WriteString(w.w, escape(s, true)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer underneath, for what draws on the terminal
// itself (the progress bar) and for asking whether it is a terminal.
func (w *Writer) Unwrap() io.Writer { return w.w }

// Raw returns the writer underneath w when w is a Writer, else w.
func Raw(w io.Writer) io.Writer {
	if tw, ok := w.(*Writer); ok {
		return tw.w
	}
	return w
}
