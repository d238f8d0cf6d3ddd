package tokens

import (
	"iter"
	"unicode"
	"unicode/utf8"
)

// pieces splits text as cl100k_base's pattern does before BPE:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// scanning by hand, for Go's regexp has no lookahead. Each alternative is
// tried in order at each position, as the regex engine does; the
// differential test checks the result against a regex engine that has it.
func pieces(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := 0; i < len(text); {
			n := pieceLen(text[i:])
			if !yield(text[i : i+n]) {
				return
			}
			i += n
		}
	}
}

// pieceLen is the length in bytes of the piece that starts s (s != "").
func pieceLen(s string) int {
	r0, w0 := utf8.DecodeRuneInString(s)
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r0 == '\'' {
		if n := contraction(s[w0:]); n > 0 {
			return w0 + n
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isLetter(r0) {
		return w0 + run(s[w0:], isLetter)
	}
	r1, w1 := utf8.DecodeRuneInString(s[w0:])
	if w1 > 0 && r0 != '\r' && r0 != '\n' && !isNumber(r0) && isLetter(r1) {
		return w0 + w1 + run(s[w0+w1:], isLetter)
	}
	// \p{N}{1,3}
	if isNumber(r0) {
		n := w0
		for k := 1; k < 3; k++ {
			r, w := utf8.DecodeRuneInString(s[n:])
			if w == 0 || !isNumber(r) {
				break
			}
			n += w
		}
		return n
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	start := 0
	if r0 == ' ' && w1 > 0 && isPunct(r1) {
		start = w0
	}
	if r, _ := utf8.DecodeRuneInString(s[start:]); isPunct(r) {
		n := start + run(s[start:], isPunct)
		return n + run(s[n:], isNewline)
	}
	// Here r0 is white space: \s*[\r\n]+ ends after the run's last newline.
	ws := run(s, unicode.IsSpace)
	lastNL := -1
	for i := 0; i < ws; {
		r, w := utf8.DecodeRuneInString(s[i:])
		if isNewline(r) {
			lastNL = i + w
		}
		i += w
	}
	if lastNL > 0 {
		return lastNL
	}
	// \s+(?!\S): the whole run at the end of the text, else all of it but
	// its last character; \s+: a single white space before a non-space.
	if ws == len(s) {
		return ws
	}
	_, wl := utf8.DecodeLastRuneInString(s[:ws])
	if ws-wl > 0 {
		return ws - wl
	}
	return ws
}

// contraction is the length of the contraction suffix (after the
// apostrophe) that starts s, case-insensitively, or 0.
func contraction(s string) int {
	r, w := utf8.DecodeRuneInString(s)
	if isOneOf(r, "sStTmMdDſ") { // ſ folds to s
		return w
	}
	r2, w2 := utf8.DecodeRuneInString(s[w:])
	if (isOneOf(r, "rRvV") && isOneOf(r2, "eE")) || (isOneOf(r, "lL") && isOneOf(r2, "lL")) {
		return w + w2
	}
	return 0
}

func isOneOf(r rune, set string) bool {
	for _, c := range set {
		if r == c {
			return true
		}
	}
	return false
}

// run is the length in bytes of the prefix of s whose runes all satisfy f.
func run(s string, f func(rune) bool) int {
	for i, r := range s {
		if !f(r) {
			return i
		}
	}
	return len(s)
}

func isLetter(r rune) bool  { return unicode.IsLetter(r) }
func isNumber(r rune) bool  { return unicode.IsNumber(r) }
func isNewline(r rune) bool { return r == '\r' || r == '\n' }

// isPunct is [^\s\p{L}\p{N}].
func isPunct(r rune) bool { return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r) }
