package openai

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// maxCanonicalDepth bounds the nesting appendArguments follows; deeper
// arguments take the round trip, whose decoder allows 10000 levels.
const maxCanonicalDepth = 200

// appendArguments appends a tool call's arguments text s as the round
// trip writes it (arguments decoded with UseNumber, httpapi.SerdeNumbers,
// httpapi.DriverJSON): compact, object keys sorted bytewise with the last
// of a repeated key kept, strings re-escaped by appendString, numbers as
// serde_json prints them. ok is false unless s is one JSON object between
// JSON whitespace whose numbers are in range: every other text (not
// JSON, not an object, trailing text, a number beyond f64) is left to the
// round trip, which has the driver's error text for it.
func appendArguments(b []byte, s string) (_ []byte, ok bool) {
	p := argParser{s: s}
	p.space()
	if p.i == len(s) || s[p.i] != '{' {
		return b, false
	}
	if b, ok = p.value(b, 0); !ok {
		return b, false
	}
	p.space()
	return b, p.i == len(s)
}

// argParser reads a JSON text strictly (RFC 8259), writing its canonical
// form as it goes.
type argParser struct {
	s string
	i int
}

// member is one "key":value of an object being written, by its offsets
// in the output.
type member struct {
	key        string
	start, end int
}

func (p *argParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *argParser) value(b []byte, depth int) ([]byte, bool) {
	if p.i == len(p.s) || depth > maxCanonicalDepth {
		return b, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(b, depth)
	case c == '[':
		return p.array(b, depth)
	case c == '"':
		s, ok := p.str()
		if !ok {
			return b, false
		}
		b, _ = appendString(b, s) // s is UTF-8: unquote made it so
		return b, true
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number(b)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if strings.HasPrefix(p.s[p.i:], lit) {
			p.i += len(lit)
			return append(b, lit...), true
		}
	}
	return b, false
}

// object writes the object at p as encoding/json writes the
// map[string]any it decodes to. Members are written in their order and
// sorted afterwards only when their keys are not already strictly
// increasing, which is how models send them more often than not.
func (p *argParser) object(b []byte, depth int) ([]byte, bool) {
	start := len(b)
	b = append(b, '{')
	p.i++
	var buf [8]member
	members := buf[:0]
	sorted := true
	for first := true; ; first = false {
		p.space()
		if first && p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return append(b, '}'), true
		}
		if p.i == len(p.s) || p.s[p.i] != '"' {
			return b, false
		}
		key, ok := p.str()
		if !ok {
			return b, false
		}
		p.space()
		if p.i == len(p.s) || p.s[p.i] != ':' {
			return b, false
		}
		p.i++
		p.space()
		if !first {
			b = append(b, ',')
			sorted = sorted && members[len(members)-1].key < key
		}
		m := member{key: key, start: len(b)}
		b, _ = appendString(b, key)
		b = append(b, ':')
		if b, ok = p.value(b, depth+1); !ok {
			return b, false
		}
		m.end = len(b)
		members = append(members, m)
		p.space()
		if p.i == len(p.s) {
			return b, false
		}
		if p.s[p.i] == '}' {
			p.i++
			break
		}
		if p.s[p.i] != ',' {
			return b, false
		}
		p.i++
	}
	b = append(b, '}')
	if sorted {
		return b, true
	}
	return reorder(b, start, members), true
}

// reorder rewrites the object written at b[start:] with its members
// sorted by key, of each repeated key only the last (a map keeps the last
// value it is given; a stable sort keeps a key's copies in their order).
func reorder(b []byte, start int, members []member) []byte {
	written := slices.Clone(b[start:])
	slices.SortStableFunc(members, func(x, y member) int { return strings.Compare(x.key, y.key) })
	b = append(b[:start], '{')
	for i, m := range members {
		if i+1 < len(members) && members[i+1].key == m.key {
			continue
		}
		if len(b) > start+1 {
			b = append(b, ',')
		}
		b = append(b, written[m.start-start:m.end-start]...)
	}
	return append(b, '}')
}

func (p *argParser) array(b []byte, depth int) ([]byte, bool) {
	b = append(b, '[')
	p.i++
	for first := true; ; first = false {
		p.space()
		if first && p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return append(b, ']'), true
		}
		if !first {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = p.value(b, depth+1); !ok {
			return b, false
		}
		p.space()
		if p.i == len(p.s) {
			return b, false
		}
		if p.s[p.i] == ']' {
			p.i++
			return append(b, ']'), true
		}
		if p.s[p.i] != ',' {
			return b, false
		}
		p.i++
	}
}

// str reads the string literal at p (p.s[p.i] is '"') and returns what it
// decodes to.
func (p *argParser) str() (string, bool) {
	start := p.i
	for p.i++; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			return unquote(p.s[start:p.i])
		}
	}
	return "", false
}

// number reads a JSON number and writes it as httpapi.SerdeNumbers does:
// an integer of up to 18 digits unchanged (it fits in both i64 and u64;
// -0 excepted, which serde_json reads as a float), any other through
// SerdeNumbers itself.
func (p *argParser) number(b []byte) ([]byte, bool) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	n := digits()
	if n == 0 || (n > 1 && p.s[intStart] == '0') {
		return b, false
	}
	integer := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return b, false
		}
		integer = false
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return b, false
		}
		integer = false
	}
	lit := p.s[start:p.i]
	if integer && n <= 18 && lit != "-0" {
		return append(b, lit...), true
	}
	v, err := httpapi.SerdeNumbers(json.Number(lit))
	num, isNumber := v.(json.Number)
	if err != nil || !isNumber {
		return b, false
	}
	return append(b, num...), true
}
