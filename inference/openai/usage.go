package openai

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// usage is the completion's token counts, nil when absent or not valid
// (the driver reads no usage, so none makes the answer unusable). Valid is
// what json.Unmarshal into a struct of two int64 fields prompt_tokens and
// completion_tokens accepts, read here without reflection: an object
// whose keys match those names in any case (bytes.EqualFold, as
// encoding/json matches struct fields), each one's last value counting, a
// null leaving the count as it was; a count that is not an integer
// literal within int64 (a string, 1.0, 1e2, 2^63) makes it invalid, and so
// does a negative one. raw is a member of a body json.Valid accepted.
func usage(raw json.RawMessage) *inference.Usage {
	b := skipSpace(raw)
	if len(b) == 0 || b[0] != '{' {
		return nil // absent, null, or not an object
	}
	var u inference.Usage
	b = b[1:]
	for {
		b = skipSpace(b)
		if len(b) == 0 || b[0] != '"' {
			break // '}'
		}
		n := stringEnd(b)
		key := b[:n]
		if b = skipSpace(b[n:]); len(b) == 0 || b[0] != ':' {
			return nil // not JSON: json.Valid has ruled it out
		}
		b = skipSpace(b[1:])
		n = valueEnd(b)
		if count := usageCount(&u, key); count != nil && string(b[:n]) != "null" {
			v, err := strconv.ParseInt(string(b[:n]), 10, 64)
			if err != nil {
				return nil
			}
			*count = v
		}
		if b = skipSpace(b[n:]); len(b) == 0 || b[0] != ',' {
			break
		}
		b = b[1:]
	}
	if u.InputTokens < 0 || u.OutputTokens < 0 {
		return nil
	}
	u.CachedInputTokens = cachedTokens(raw)
	return &u
}

// cachedTokens is prompt_tokens_details.cached_tokens, the part of
// prompt_tokens served from OpenAI's prompt cache: 0 when absent or not a
// non-negative integer (the driver reads none of it, so it never makes a
// usage invalid).
func cachedTokens(raw json.RawMessage) int64 {
	c := skipSpace(field(field(raw, "prompt_tokens_details"), "cached_tokens"))
	n, err := strconv.ParseInt(string(c), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// usageCount is the count of u that the quoted key sets, nil for another
// key.
func usageCount(u *inference.Usage, key []byte) *int64 {
	k := key[1 : len(key)-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		s, ok := str(key)
		if !ok {
			return nil
		}
		k = []byte(s)
	}
	switch {
	case bytes.EqualFold(k, []byte("prompt_tokens")):
		return &u.InputTokens
	case bytes.EqualFold(k, []byte("completion_tokens")):
		return &u.OutputTokens
	}
	return nil
}
