// Package jsonstr appends Go strings as JSON strings, byte for byte as the
// three encoders murmur-eval's outputs must match write them. The journal
// record, a turn's token payload, the driver's canonical response and the
// trace each had their own copy of these rules; this is the one copy.
package jsonstr

import (
	"math/bits"
	"unicode/utf8"
)

// Style is which encoder's bytes Append writes. They agree on everything
// but the HTML characters and the line separators:
//
//	            <, > and &       U+2028 and U+2029
//	Marshal     \u003c ...       \u2028, \u2029      json.Marshal
//	NoHTML      as they are      \u2028, \u2029      a json.Encoder with SetEscapeHTML(false)
//	Driver      as they are      as they are         httpapi.DriverJSON
//
// All three write the quote and the backslash escaped, \b \f \n \r \t by
// name, the other control bytes as \u00XX in lower-case hex, and each byte
// that is not part of valid UTF-8 as \ufffd.
type Style uint8

const (
	Marshal Style = iota
	NoHTML
	Driver
)

const lowerHex = "0123456789abcdef"

// Append appends s quoted in style st. valid is false when s is not
// UTF-8: its bad bytes were written as \ufffd, so the JSON does not read
// back as s (a caller that must read back the same may then refuse).
func Append(b []byte, s string, st Style) (out []byte, valid bool) {
	html := st == Marshal
	b = append(b, '"')
	valid = true
	start := 0
	for i := 0; i < len(s); {
		i += plainRun(s[i:], html)
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if plain(c, html) { // the tail plainRun does not scan, or a byte it stops at early
				i++
				continue
			}
			b = appendEscapedByte(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
			valid = false
		case (r == '\u2028' || r == '\u2029') && st != Driver:
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', lowerHex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"'), valid
}

// plainRun is how many of s's first bytes need no escape in any style,
// found eight at a time (a journal record is mostly trace lines, whose
// runs of plain bytes between quotes are what encoding spends its time
// on). A byte stops the run when it is below the space, from 0x80 on, the
// quote or the backslash, and, when html is set, <, > or &. The lowest
// flag of a word is its first such byte: a flag never spills downwards.
func plainRun(s string, html bool) int {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v & high } // a flag on each zero byte
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		flags := x&high | // from 0x80 on
			(x-0x20*ones)&^x&high | // below the space
			zero(x^'"'*ones) |
			zero(x^'\\'*ones)
		if html {
			flags |= zero(x^'&'*ones) | zero((x^'<'*ones)&^(0x02*ones)) // &, then < or >
		}
		if flags != 0 {
			return i + bits.TrailingZeros64(flags)/8
		}
	}
	return i
}

// plain reports whether an ASCII byte is copied as it is.
func plain(c byte, html bool) bool {
	return c >= ' ' && c != '"' && c != '\\' && (!html || (c != '<' && c != '>' && c != '&'))
}

// appendEscapedByte appends the escape of an ASCII byte that is not plain.
func appendEscapedByte(b []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xF])
}
