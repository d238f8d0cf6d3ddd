package main

import (
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// The JSON values of the journal record, each written exactly as
// encoding/json writes it with HTML escaping on (json.Marshal's default):
// its encode.go, appendString and floatEncoder.encode, restated.

// jsonPlain marks the bytes json.Marshal copies into a string as they are:
// ASCII from the space on, but for the quote, the backslash and the HTML
// characters <, > and & (encoding/json's htmlSafeSet).
var jsonPlain = func() (t [256]bool) { //nolint:gochecknoglobals // read-only table of the bytes a JSON string holds unescaped
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const lowerHex = "0123456789abcdef"

// appendJSONString appends s quoted as json.Marshal quotes a string: the
// quote and backslash escaped, \b \f \n \r \t by name, the other control
// bytes and <, > and & as \u00XX, U+2028 and U+2029 as \u2028 and \u2029,
// and every byte that is not part of valid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		i += plainRun(s[i:])
		if i == len(s) {
			break
		}
		c := s[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = appendEscapedByte(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', lowerHex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// plainRun is how many of s's first bytes are plain (jsonPlain), found
// eight at a time: a record is mostly its events' JSON, whose runs of
// plain bytes between quotes are what json.Marshal spends its time on.
// Of an eight-byte word, it flags each byte below the space, from 0x80
// on, or equal to one of the five, and the lowest flag is the first such
// byte (a flag never spills downwards).
func plainRun(s string) int {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v & high } // a flag on each zero byte
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		flags := x&high | // from 0x80 on
			(x-0x20*ones)&^x&high | // below the space
			zero((x^'"'*ones)&^(0x04*ones)) | // " or &
			zero((x^'<'*ones)&^(0x02*ones)) | // < or >
			zero(x^'\\'*ones)
		if flags != 0 {
			return i + bits.TrailingZeros64(flags)/8
		}
	}
	return i
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

func appendJSONInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// appendJSONFloat appends f as json.Marshal writes a float64: the shortest
// decimal that reads back as f, in 'f' form unless |f| is below 1e-6 or
// from 1e21 on, where it is in 'e' form with a one-digit negative exponent
// not padded (1e-7, not 1e-07). ok is false for NaN and the infinities,
// which JSON cannot hold (json.Marshal fails).
func appendJSONFloat(b []byte, f float64) (out []byte, ok bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, true
}
