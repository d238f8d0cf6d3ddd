package loop

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// maxCanonDepth is the deepest nesting canonical handles; deeper values go
// the slow way (which refuses past encoding/json's own limit).
const maxCanonDepth = 512

// canonical rewrites raw, json.Marshal's output (valid and compact), as
// serdeTree does: the members of every object sorted by key (the last of
// a repeated key kept), the HTML escapes \u003c, \u003e and \u0026
// written as the characters, everything else as it is. It does in one pass
// over the bytes what serdeTree does through a decoded tree, for the shapes
// a request and a response have. ok is false, and the result unusable,
// for anything it does not rewrite exactly as the tree would (a key with
// an escape, an escape encoding/json would write differently such as \/
// or \u00e9, invalid UTF-8, white space, a very deep value, and anything
// that is not JSON): the caller then takes serdeTree.
// TestCanonicalMatchesTree and FuzzCanonical check it against serdeTree.
func canonical(raw []byte) (out []byte, ok bool) {
	c := canonWriter{raw: raw, out: make([]byte, 0, len(raw))}
	if !c.value(0) || c.i != len(raw) {
		return nil, false
	}
	return c.out, true
}

// canonWriter is one canonical pass: raw read from i, out written.
// members is a stack of the members of the objects being written, the
// innermost last, so that an object costs no allocation of its own.
type canonWriter struct {
	raw     []byte
	i       int
	out     []byte
	members []canonMember
}

// canonMember is one object member written to out: "key":value at
// out[start:end], key a slice of raw.
type canonMember struct {
	key        []byte
	start, end int
}

func compareMembers(a, b canonMember) int { return bytes.Compare(a.key, b.key) }

func (c *canonWriter) value(depth int) bool {
	if c.i >= len(c.raw) || depth > maxCanonDepth {
		return false
	}
	switch b := c.raw[c.i]; {
	case b == '{':
		return c.object(depth)
	case b == '[':
		return c.array(depth)
	case b == '"':
		return c.str()
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number()
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if bytes.HasPrefix(c.raw[c.i:], []byte(lit)) {
				c.out = append(c.out, lit...)
				c.i += len(lit)
				return true
			}
		}
		return false
	}
}

func (c *canonWriter) array(depth int) bool {
	c.out = append(c.out, '[')
	c.i++
	for first := true; ; first = false {
		if c.i >= len(c.raw) {
			return false
		}
		if c.raw[c.i] == ']' {
			c.out = append(c.out, ']')
			c.i++
			return true
		}
		if !first {
			if c.raw[c.i] != ',' {
				return false
			}
			c.out = append(c.out, ',')
			c.i++
		}
		if !c.value(depth + 1) {
			return false
		}
	}
}

func (c *canonWriter) object(depth int) bool {
	start := len(c.out)
	c.out = append(c.out, '{')
	c.i++
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	for first := true; ; first = false {
		if c.i >= len(c.raw) {
			return false
		}
		if c.raw[c.i] == '}' {
			c.i++
			break
		}
		if !first {
			if c.raw[c.i] != ',' {
				return false
			}
			c.out = append(c.out, ',')
			c.i++
		}
		m := canonMember{start: len(c.out)}
		key, ok := c.plainKey()
		if !ok || c.i >= len(c.raw) || c.raw[c.i] != ':' {
			return false
		}
		c.out = append(c.out, '"')
		c.out = append(c.out, key...)
		c.out = append(c.out, '"', ':')
		c.i++
		if !c.value(depth + 1) {
			return false
		}
		m.key, m.end = key, len(c.out)
		c.members = append(c.members, m)
	}
	c.out = append(c.out, '}')
	members := c.members[base:]
	if slices.IsSortedFunc(members, compareMembers) && !repeatedKey(members) {
		return true
	}
	c.out = c.resort(start, members)
	return true
}

// resort rewrites the object written at out[start:] with its members in
// key order, the last of a repeated key kept, as a decoded map encodes.
func (c *canonWriter) resort(start int, members []canonMember) []byte {
	body := bytes.Clone(c.out[start:])
	slices.SortStableFunc(members, compareMembers)
	out := append(c.out[:start], '{')
	for k, m := range members {
		if k+1 < len(members) && bytes.Equal(members[k+1].key, m.key) {
			continue // a later member of the same key wins
		}
		if out[len(out)-1] != '{' {
			out = append(out, ',')
		}
		out = append(out, body[m.start-start:m.end-start]...)
	}
	return append(out, '}')
}

func repeatedKey(sorted []canonMember) bool {
	for k := 1; k < len(sorted); k++ {
		if bytes.Equal(sorted[k].key, sorted[k-1].key) {
			return true
		}
	}
	return false
}

// plainKey reads an object key with no escape and valid UTF-8 without
// U+2028 or U+2029 (which encoding/json writes escaped), returning it
// without its quotes.
func (c *canonWriter) plainKey() ([]byte, bool) {
	if c.i >= len(c.raw) || c.raw[c.i] != '"' {
		return nil, false
	}
	end := bytes.IndexByte(c.raw[c.i+1:], '"')
	if end < 0 {
		return nil, false
	}
	key := c.raw[c.i+1 : c.i+1+end]
	if bytes.IndexByte(key, '\\') >= 0 || hasControl(key) || (!isASCII(key) && !plainText(key)) {
		return nil, false
	}
	c.i += end + 2
	return key, true
}

// plainText reports whether b is valid UTF-8 without a raw U+2028 or
// U+2029: text encoding/json writes back byte for byte.
func plainText(b []byte) bool {
	return utf8.Valid(b) && !bytes.Contains(b, []byte("\u2028")) && !bytes.Contains(b, []byte("\u2029"))
}

// isASCII reports whether b is all ASCII, which is plainText with no
// need to look for what only a multi-byte character can be.
func isASCII(b []byte) bool {
	for _, x := range b {
		if x >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasControl reports whether b holds a byte below ' ', which JSON text
// never holds raw (json.Marshal writes none).
func hasControl(b []byte) bool {
	for _, x := range b {
		if x < ' ' {
			return true
		}
	}
	return false
}

// str copies a string, writing the three HTML escapes as their
// characters; any escape encoding/json would write differently refuses.
// Its text is checked with plainText once, at the end, when it is not all
// ASCII: the escapes write ASCII, which neither ends a valid text nor
// makes an invalid one valid, nor takes part in U+2028 or U+2029.
func (c *canonWriter) str() bool {
	raw := c.raw
	c.out = append(c.out, '"')
	start := len(c.out)
	var high byte // every byte of the text or'ed: >= utf8.RuneSelf when not ASCII
	for i := c.i + 1; i < len(raw); {
		j := i
		for ; j < len(raw) && raw[j] != '"' && raw[j] != '\\'; j++ {
			if raw[j] < ' ' {
				return false // not JSON; json.Marshal writes none
			}
			high |= raw[j]
		}
		c.out = append(c.out, raw[i:j]...)
		if j == len(raw) {
			return false
		}
		if raw[j] == '"' {
			if high >= utf8.RuneSelf && !plainText(c.out[start:]) {
				return false
			}
			c.out = append(c.out, '"')
			c.i = j + 1
			return true
		}
		c.i = j
		n, ok := c.escape()
		if !ok {
			return false
		}
		i = j + n
	}
	return false
}

// escape writes the escape at raw[i] as encoding/json writes its
// character with HTML escaping off, returning its length; ok is false
// unless that is the escape itself or the HTML character.
func (c *canonWriter) escape() (int, bool) {
	e := c.raw[c.i:]
	if len(e) < 2 {
		return 0, false
	}
	switch e[1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		c.out = append(c.out, e[:2]...)
		return 2, true
	case 'u':
	default:
		return 0, false
	}
	if len(e) < 6 {
		return 0, false
	}
	switch hex := string(e[2:6]); hex {
	case "003c":
		c.out = append(c.out, '<')
		return 6, true
	case "003e":
		c.out = append(c.out, '>')
		return 6, true
	case "0026":
		c.out = append(c.out, '&')
		return 6, true
	case "2028", "2029":
		c.out = append(c.out, e[:6]...)
		return 6, true
	case "0008", "0009", "000a", "000c", "000d":
		return 0, false // encoding/json writes \b, \t, \n, \f, \r
	default:
		// \u00XX below 0x20 in lower-case hex, as encoding/json writes a
		// control character.
		if hex[:2] == "00" && (hex[2] == '0' || hex[2] == '1') && isLowerHex(hex[3]) {
			c.out = append(c.out, e[:6]...)
			return 6, true
		}
		return 0, false
	}
}

func isLowerHex(b byte) bool { return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') }

// number copies a number as written (the tree keeps it as json.Number),
// refusing one JSON's grammar does not allow: json.Marshal writes none,
// and a RawMessage canonical takes directly (serdeRequest) must be JSON.
func (c *canonWriter) number() bool {
	from := c.i
	c.skip('-')
	switch {
	case c.skip('0'):
	case c.digits() == 0:
		return false
	}
	if c.skip('.') && c.digits() == 0 {
		return false
	}
	if c.skip('e') || c.skip('E') {
		if !c.skip('+') {
			c.skip('-')
		}
		if c.digits() == 0 {
			return false
		}
	}
	c.out = append(c.out, c.raw[from:c.i]...)
	return true
}

// skip reads b if it is next.
func (c *canonWriter) skip(b byte) bool {
	if c.i < len(c.raw) && c.raw[c.i] == b {
		c.i++
		return true
	}
	return false
}

// digits reads a run of decimal digits, returning its length.
func (c *canonWriter) digits() int {
	from := c.i
	for c.i < len(c.raw) && c.raw[c.i] >= '0' && c.raw[c.i] <= '9' {
		c.i++
	}
	return c.i - from
}
