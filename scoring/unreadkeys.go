package scoring

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/murmur-nexus/murmur-eval/internal/suggest"
)

// KeyHint is a key of an expected object murmur-eval does not read, with
// the known key it most likely meant ("" when none is close).
type KeyHint struct {
	Key     string
	Suggest string
}

// UnreadKeys returns the keys of an expected value ParseExpected did not
// read (ok=false), sorted, each with a suggestion: nil when the value is
// not a JSON object. For a warning that names the typo, not just the case.
func UnreadKeys(raw json.RawMessage) []KeyHint {
	raw = bytes.TrimSpace(raw)
	var fields map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	out := make([]KeyHint, 0, len(fields))
	for k := range fields {
		out = append(out, KeyHint{Key: k, Suggest: suggest.Closest(k, knownKeys())})
	}
	slices.SortFunc(out, func(a, b KeyHint) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	return out
}
