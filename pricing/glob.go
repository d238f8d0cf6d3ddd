package pricing

import (
	"strings"
)

// pattern is a model name or a glob over model names: '*' matches any run
// of characters (slashes too: "openrouter/openai/gpt-4o"), '?' any one
// character; every other character is literal. Brackets, braces and
// backslashes are refused, so a name never means more than it shows.
type pattern struct {
	text     string
	literals int  // characters other than '*' and '?'
	glob     bool // has a '*' or a '?'
}

// reservedGlob are the characters other glob dialects give a meaning.
const reservedGlob = `[]{}\`

func newPattern(s string) pattern {
	n := strings.Count(s, "*") + strings.Count(s, "?")
	return pattern{text: s, literals: len([]rune(s)) - n, glob: n > 0}
}

// moreSpecific orders patterns from the most specific: more literal
// characters first, then fewer '*' (a '?' pins one character, a '*' any
// number), then the text in byte order, so that among globs matching one
// model the choice never depends on file order.
func (p pattern) moreSpecific(q pattern) bool {
	if p.literals != q.literals {
		return p.literals > q.literals
	}
	if ps, qs := strings.Count(p.text, "*"), strings.Count(q.text, "*"); ps != qs {
		return ps < qs
	}
	return p.text < q.text
}

// match reports whether name matches the glob: iterative, with one
// backtrack point per '*', linear in practice and never exponential.
func (p pattern) match(name string) bool {
	pat, s := []rune(p.text), []rune(name)
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(pat) && (pat[pi] == '?' || pat[pi] == s[si]):
			pi++
			si++
		case pi < len(pat) && pat[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi, mark = star+1, mark+1
			si = mark
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == '*' {
		pi++
	}
	return pi == len(pat)
}
