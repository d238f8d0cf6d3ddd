package view

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// clean makes text safe to read: invalid UTF-8 becomes U+FFFD, and every
// control character (but newline and tab) and every invisible formatting
// or bidi character (U+202E and its kin, which reorder what a reader sees)
// is replaced by a visible placeholder such as ⟨U+202E⟩. html/template
// escapes the rest.
func clean(s string) string {
	if !needsClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case hidden(r):
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsClean is clean's fast path: most text has nothing to replace.
func needsClean(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			return true
		case c >= 0x80:
			return !utf8.ValidString(s[i:]) || hasHiddenRune(s[i:])
		}
	}
	return false
}

func hasHiddenRune(s string) bool {
	for _, r := range s {
		if hidden(r) {
			return true
		}
	}
	return false
}

// hidden reports whether r is shown as a placeholder: C0 and C1 controls
// (newline and tab aside), DEL, and the zero-width, bidi embedding,
// override and isolate characters, which change what a reader sees
// without being seen.
func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return true
	case r == 0x061c || r == 0x180e || r == 0xfeff:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069:
		return true
	case r >= 0xfff9 && r <= 0xfffb:
		return true
	}
	return false
}

// cutUTF8 returns the first n bytes of s or fewer, never splitting a rune.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// firstLine is s's first non-empty line, cut to n bytes, for a folded
// text's summary.
func firstLine(s string, n int) string {
	s = strings.TrimLeft(s, " \t\r\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		return cutUTF8(s, n) + "…"
	}
	return s
}

// size is a byte count for a person.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
