package capsule

import (
	"fmt"
	"regexp"
	"strings"
)

// serdeYAMLString renders s as a YAML scalar the way serde_yaml 0.9 (the
// writer of murmur's murmur.lock) does in block context:
//
//   - a string YAML would read as something else (empty, null, a bool, an
//     int in any base, a float, digits with a leading zero) is single-quoted;
//   - otherwise plain, when libyaml's emitter allows a plain scalar there (no
//     leading or trailing space, no indicator at the start, no ": " or " #",
//     not a document marker, printable);
//   - otherwise single-quoted, with ' doubled; a line break or a character
//     libyaml will not print in single quotes gets double quotes.
//
// murmur.lock holds names, versions and hex digests, for which this is
// exact; the double-quoted fallback uses libyaml's escapes.
func serdeYAMLString(s string) string {
	if !printable(s) {
		return doubleQuoted(s)
	}
	if yamlAmbiguous(s) || !plainAllowed(s) {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

var (
	yamlFloat  = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	yamlRadix  = regexp.MustCompile(`^[+-]?0(x[0-9a-fA-F]+|o[0-7]+|b[01]+)$`)
	yamlSpecia = map[string]bool{ //nolint:gochecknoglobals // read-only set of serde_yaml's special scalars
		"~": true, "null": true, "Null": true, "NULL": true,
		"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
		".inf": true, ".Inf": true, ".INF": true, "+.inf": true, "+.Inf": true, "+.INF": true,
		"-.inf": true, "-.Inf": true, "-.INF": true, ".nan": true, ".NaN": true, ".NAN": true,
	}
)

// yamlAmbiguous: serde_yaml's untagged-scalar rules would not read s back
// as a string.
func yamlAmbiguous(s string) bool {
	return s == "" || yamlSpecia[s] || yamlFloat.MatchString(s) || yamlRadix.MatchString(s)
}

// plainAllowed is libyaml's analysis for a plain scalar in block context.
func plainAllowed(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		return false
	}
	space := func(i int) bool { return i >= len(s) || s[i] == ' ' || s[i] == '\t' }
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r':
			return false
		case i == 0 && strings.IndexByte("#,[]{}&*!|>'\"%@`", c) >= 0:
			return false
		case (c == '?' || c == '-') && i == 0 && space(i+1):
			return false
		case c == ':' && space(i+1):
			return false
		case c == '#' && i > 0 && s[i-1] == ' ':
			return false
		}
	}
	return true
}

// printable is libyaml's IS_PRINTABLE for every character, without line
// breaks (which plain and single-quoted scalars would fold).
func printable(s string) bool {
	for _, r := range s {
		if !yamlPrintable(r) || r == 0x0A || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	return true
}

func yamlPrintable(r rune) bool {
	return r == 0x0A || r >= 0x20 && r <= 0x7E || r == 0x85 || r >= 0xA0 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF || r >= 0x10000 && r <= 0x10FFFF
}

// doubleQuoted writes s with libyaml's double-quoted escapes.
func doubleQuoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case 0:
			b.WriteString(`\0`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1B:
			b.WriteString(`\e`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case 0x85:
			b.WriteString(`\N`)
		case 0xA0:
			b.WriteString(`\_`)
		case 0x2028:
			b.WriteString(`\L`)
		case 0x2029:
			b.WriteString(`\P`)
		default:
			switch {
			case yamlPrintable(r) && r != 0x0A:
				b.WriteRune(r)
			case r <= 0xFF:
				fmt.Fprintf(&b, `\x%02X`, r)
			case r <= 0xFFFF:
				fmt.Fprintf(&b, `\u%04X`, r)
			default:
				fmt.Fprintf(&b, `\U%08X`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
