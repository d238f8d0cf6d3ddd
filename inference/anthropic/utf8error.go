package anthropic

import "fmt"

// utf8Error is Rust's Utf8Error text for the first invalid sequence in b,
// "" when b is valid UTF-8: murmur's driver (String::from_utf8) ends a
// turn with it. Rust reports the length of the sequence it rejected (the
// lead byte and the continuation bytes that were still valid), or an
// incomplete sequence at the end.
func utf8Error(b []byte) string {
	for i := 0; i < len(b); {
		n, bad := utf8Seq(b[i:])
		switch {
		case bad < 0:
			return fmt.Sprintf("incomplete utf-8 byte sequence from index %d", i)
		case bad > 0:
			return fmt.Sprintf("invalid utf-8 sequence of %d bytes from index %d", bad, i)
		}
		i += n
	}
	return ""
}

// utf8Seq checks the sequence at the start of b: its length n when valid
// (bad 0), else bad is the rejected length, or -1 when b ends inside it.
func utf8Seq(b []byte) (n, bad int) {
	width := 0
	lo, hi := byte(0x80), byte(0xBF) // the second byte's range
	switch c := b[0]; {
	case c < 0x80:
		return 1, 0
	case c >= 0xC2 && c <= 0xDF:
		width = 2
	case c == 0xE0:
		width, lo = 3, 0xA0
	case c == 0xED:
		width, hi = 3, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		width = 3
	case c == 0xF0:
		width, lo = 4, 0x90
	case c == 0xF4:
		width, hi = 4, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		width = 4
	default:
		return 0, 1
	}
	for k := 1; k < width; k++ {
		if k >= len(b) {
			return 0, -1
		}
		if k == 1 && (b[1] < lo || b[1] > hi) || k > 1 && (b[k] < 0x80 || b[k] > 0xBF) {
			return 0, k
		}
	}
	return width, 0
}
