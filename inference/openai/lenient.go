package openai

import (
	"bytes"
	"encoding/json"
)

// The driver reads an answer leniently: a member of the wrong type counts
// as absent. These helpers read members and elements straight out of a
// JSON text that json.Valid has accepted, without decoding what they step
// over: the answer is scanned once and only the strings the driver uses
// are copied (RATIONALE.md, "Why does the OpenAI provider scan answers
// instead of decoding them into maps?"). On text that is not valid JSON
// they return nothing rather than fail; they never panic.

// field is raw's member key when raw is an object, else nil: keys matched
// exactly after unescaping, the last of a repeated key kept, as serde_json
// (and encoding/json into a map) reads them.
func field(raw json.RawMessage, key string) json.RawMessage {
	var found json.RawMessage
	b := skipSpace(raw)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	b = b[1:]
	for {
		b = skipSpace(b)
		if len(b) == 0 || b[0] != '"' {
			return found // '}' or not JSON
		}
		n := stringEnd(b)
		k := b[:n]
		b = skipSpace(b[n:])
		if len(b) == 0 || b[0] != ':' {
			return found
		}
		b = skipSpace(b[1:])
		n = valueEnd(b)
		if n == 0 {
			return found
		}
		if keyIs(k, key) {
			found = json.RawMessage(b[:n])
		}
		b = skipSpace(b[n:])
		if len(b) == 0 || b[0] != ',' {
			return found
		}
		b = b[1:]
	}
}

// array is raw's elements when raw is an array, else nil.
func array(raw json.RawMessage) []json.RawMessage {
	b := skipSpace(raw)
	if len(b) == 0 || b[0] != '[' {
		return nil
	}
	var out []json.RawMessage
	b = b[1:]
	for {
		b = skipSpace(b)
		n := valueEnd(b)
		if n == 0 {
			return out // ']' or not JSON
		}
		out = append(out, json.RawMessage(b[:n]))
		b = skipSpace(b[n:])
		if len(b) == 0 || b[0] != ',' {
			return out
		}
		b = b[1:]
	}
}

// str is raw's value when raw is a string. A string without escapes is
// its bytes (the answer is valid UTF-8, so encoding/json would copy them
// unchanged); one with escapes is unescaped by unquote, as encoding/json
// unescapes it.
func str(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || stringEnd(raw) != len(raw) {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	return unquote(raw)
}

// keyIs reports whether the quoted key k unescapes to key.
func keyIs(k []byte, key string) bool {
	if bytes.IndexByte(k, '\\') < 0 {
		return len(k) == len(key)+2 && string(k[1:len(k)-1]) == key
	}
	s, ok := str(k)
	return ok && s == key
}

func skipSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// stringEnd is the length of the string starting b (b[0] is '"'),
// its closing quote included; len(b) when it does not close.
func stringEnd(b []byte) int {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd is the length of the JSON value starting b, 0 when b does not
// start one.
func valueEnd(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"':
		return stringEnd(b)
	case '{', '[':
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				i += stringEnd(b[i:]) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	case '}', ']', ',', ':':
		return 0
	}
	for i, c := range b { // a number, true, false or null
		switch c {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return len(b)
}
