package openai

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/murmur-nexus/murmur-eval/internal/jsonstr"
)

// The JSON string codec of the direct path (direct.go): what
// encoding/json does to a string, without reflection. unquote is its
// decoder's reading of a string literal, appendString its encoder's
// writing with SetEscapeHTML(false) as httpapi.DriverJSON sets it (U+2028
// and U+2029 raw, as DriverJSON's rawLineSeparators leaves them; by
// internal/jsonstr), and
// escapeHTML what json.Marshal's compacting of a json.RawMessage adds.
// FuzzUnquote and FuzzAppendString hold them to encoding/json.

// unquote is the string the quoted JSON string literal q (quotes
// included) decodes to, as encoding/json decodes it: a lone surrogate
// escape or a byte that is not UTF-8 becomes U+FFFD. ok is false when q
// is not a string literal.
func unquote[T ~[]byte | ~string](q T) (s string, ok bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	in := q[1 : len(q)-1]
	i := 0
	for i < len(in) && in[i] >= ' ' && in[i] != '\\' && in[i] != '"' && in[i] < utf8.RuneSelf {
		i++
	}
	if i == len(in) {
		return string(in), true // plain ASCII: no copy for a string q
	}
	b := make([]byte, 0, len(in)+utf8.UTFMax)
	b = append(b, in[:i]...)
	for i < len(in) {
		switch c := in[i]; {
		case c == '\\':
			var n int
			if b, n = appendEscape(b, in[i:]); n == 0 {
				return "", false
			}
			i += n
		case c == '"', c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(string(in[i:min(len(in), i+utf8.UTFMax)]))
			b = utf8.AppendRune(b, r) // RuneError for a byte that is not UTF-8
			i += n
		}
	}
	return string(b), true
}

// appendEscape appends what the escape starting e (e[0] is '\\') stands
// for and returns its length, 0 when it is not a JSON escape. A high
// surrogate followed by a low one is one rune; any other surrogate is
// U+FFFD and the escape after it is read on its own, as encoding/json
// reads them.
func appendEscape[T ~[]byte | ~string](b []byte, e T) ([]byte, int) {
	if len(e) < 2 {
		return b, 0
	}
	switch e[1] {
	case '"', '\\', '/':
		return append(b, e[1]), 2
	case 'b':
		return append(b, '\b'), 2
	case 'f':
		return append(b, '\f'), 2
	case 'n':
		return append(b, '\n'), 2
	case 'r':
		return append(b, '\r'), 2
	case 't':
		return append(b, '\t'), 2
	case 'u':
		r := hex4(e)
		if r < 0 {
			return b, 0
		}
		if utf16.IsSurrogate(r) {
			if len(e) >= 12 {
				if r2 := utf16.DecodeRune(r, hex4(e[6:])); r2 != utf8.RuneError {
					return utf8.AppendRune(b, r2), 12
				}
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(b, r), 6
	}
	return b, 0
}

// hex4 is the rune of the escape \uXXXX starting e, -1 when e does not
// start one.
func hex4[T ~[]byte | ~string](e T) rune {
	if len(e) < 6 || e[0] != '\\' || e[1] != 'u' {
		return -1
	}
	var r rune
	for i := 2; i < 6; i++ {
		c := e[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

const hexDigits = "0123456789abcdef"

// appendString appends s quoted as httpapi.DriverJSON writes a string
// (internal/jsonstr's Driver style). clean is false when s is not UTF-8
// (each bad byte is written \ufffd): the caller may not then assume the
// string reads back as s.
func appendString(b []byte, s string) (_ []byte, clean bool) {
	return jsonstr.Append(b, s, jsonstr.Driver)
}

// escapeHTML is src as json.Marshal writes a json.RawMessage holding it:
// <, > and & as \u003c, \u003e and \u0026, U+2028 and U+2029 as \u2028
// and \u2029. Without any of them it is src itself, its capacity cut to
// its length so that an append cannot write past it.
func escapeHTML(src []byte) []byte {
	i := 0
	for i < len(src) && !htmlSpecial(src, i) {
		i++
	}
	if i == len(src) {
		return src[:len(src):len(src)]
	}
	out := make([]byte, 0, len(src)+32)
	start := 0
	for ; i < len(src); i++ {
		if !htmlSpecial(src, i) {
			continue
		}
		out = append(out, src[start:i]...)
		if c := src[i]; c != 0xE2 {
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
			continue
		}
		out = append(out, '\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xF])
		i += 2
		start = i + 1
	}
	return append(out, src[start:]...)
}

// htmlSpecial reports whether src[i] starts a byte or rune escapeHTML
// escapes.
func htmlSpecial(src []byte, i int) bool {
	switch src[i] {
	case '<', '>', '&':
		return true
	case 0xE2:
		return i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8
	}
	return false
}
