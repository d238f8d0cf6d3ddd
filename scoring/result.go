package scoring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// quoteWidth caps quoted text in reasons, in runes; answerWidth the
// answer (or file) a failed check quotes, so the reason shows what it
// looked at without holding a whole page of it.
const (
	quoteWidth  = 80
	answerWidth = 120
)

// resultScores scores the final answer (out/result.txt) against e's result_*
// expectations, in the order Names lists them.
func (e *Expected) resultScores(result string) []Score {
	var out []Score
	got := strings.TrimSpace(result)
	if e.ResultEquals != nil {
		want := strings.TrimSpace(*e.ResultEquals)
		if got == want {
			out = append(out, passFail(TypeResultEquals, TypeResultEquals, true, "result equals "+quote(want)))
		} else {
			out = append(out, passFail(TypeResultEquals, TypeResultEquals, false,
				fmt.Sprintf("result %s, want %s", quoteAnswer(got), quote(want))))
		}
	}
	if e.ResultContains != nil {
		out = append(out, containsScore(TypeResultContains, TypeResultContains, "result", result, e.ResultContains))
	}
	if re := e.ResultMatches; re != nil {
		if re.MatchString(result) {
			out = append(out, passFail(TypeResultMatches, TypeResultMatches, true, "result matches /"+re.String()+"/"))
		} else {
			out = append(out, passFail(TypeResultMatches, TypeResultMatches, false,
				fmt.Sprintf("result %s does not match /%s/", quoteAnswer(got), re.String())))
		}
	}
	if e.ResultJSON != nil {
		out = append(out, jsonScore(got, e.ResultJSON))
	}
	return out
}

// containsScore checks that text holds every wanted string; the value is
// the fraction found. A failure's reason quotes the text it looked in
// (quoteAnswer).
func containsScore(name, typ, what, text string, wanted []string) Score {
	var missing []string
	for _, w := range wanted {
		if !strings.Contains(text, w) {
			missing = append(missing, quote(w))
		}
	}
	s := Score{Name: name, Type: typ, Pass: len(missing) == 0, Value: fraction(len(wanted)-len(missing), len(wanted))}
	if s.Pass {
		quoted := make([]string, len(wanted))
		for i, w := range wanted {
			quoted[i] = quote(w)
		}
		s.Reason = what + " contains " + strings.Join(quoted, ", ")
	} else {
		s.Reason = fmt.Sprintf("%s lacks %s (%d of %d found) in %s", what, strings.Join(missing, ", "), len(wanted)-len(missing), len(wanted), quoteAnswer(text))
	}
	return s
}

// jsonScore checks that the answer is a JSON object holding each wanted
// field: equal scalars (numbers compared by value), arrays of the same
// length element by element, objects containing the wanted keys. The value
// is the fraction of wanted top-level fields that hold.
func jsonScore(result string, want map[string]json.RawMessage) Score {
	var got map[string]any
	dec := json.NewDecoder(strings.NewReader(result))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil || got == nil || dec.More() {
		return passFail(TypeResultJSON, TypeResultJSON, false, "result is not a JSON object: "+quoteAnswer(result))
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	held := 0
	var firstBad string
	for _, k := range keys {
		w, err := decodeNumbers(want[k])
		if err != nil { // want was validated as JSON when the dataset loaded
			w = nil
		}
		g, present := got[k]
		switch {
		case !present:
			if firstBad == "" {
				firstBad = fmt.Sprintf("field %s missing", strconv.Quote(k))
			}
		case !jsonContains(g, w):
			if firstBad == "" {
				firstBad = fmt.Sprintf("field %s is %s, want %s", strconv.Quote(k), compactJSON(g), compactJSON(w))
			}
		default:
			held++
		}
	}
	s := Score{Name: TypeResultJSON, Type: TypeResultJSON, Pass: held == len(keys), Value: fraction(held, len(keys))}
	if s.Pass {
		s.Reason = fmt.Sprintf("result holds all %d fields", len(keys))
	} else {
		s.Reason = fmt.Sprintf("%s (%d of %d fields hold)", firstBad, held, len(keys))
	}
	return s
}

func decodeNumbers(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// jsonContains reports whether got holds want (see jsonScore).
func jsonContains(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !jsonContains(gv, wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !jsonContains(g[i], w[i]) {
				return false
			}
		}
		return true
	case json.Number:
		g, ok := got.(json.Number)
		return ok && sameNumber(g, w)
	default: // string, bool, nil
		return got == want
	}
}

// sameNumber compares two JSON numbers by value: 1, 1.0 and 1e0 are equal.
// Integers are compared exactly within int64, other numbers as float64
// (big.Rat would be exact, but "1e999999999" would make it allocate for
// minutes).
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, err1 := a.Int64()
	y, err2 := b.Int64()
	if err1 == nil && err2 == nil {
		return x == y
	}
	f, err1 := a.Float64()
	g, err2 := b.Float64()
	return err1 == nil && err2 == nil && f == g
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return truncate(string(b), quoteWidth)
}

// quote quotes s for a reason, cut to quoteWidth runes (quoteCut).
func quote(s string) string { return quoteCut(s, quoteWidth) }

// quoteAnswer quotes the answer, or a file's text, a reason is about, cut
// to answerWidth runes (quoteCut).
func quoteAnswer(s string) string { return quoteCut(s, answerWidth) }

// quoteCut quotes s as Go does (strconv.Quote: newlines, control
// characters, bidi overrides and bytes that are not UTF-8 escaped, so the
// reason stays one line that reads as it is wherever it is shown), cut to
// its first n runes with an ellipsis and its whole length when longer:
// "The answer is…" (2048 runes).
func quoteCut(s string, n int) string {
	if l := utf8.RuneCountInString(s); l > n {
		return fmt.Sprintf("%s (%d runes)", strconv.Quote(truncate(s, n)), l)
	}
	return strconv.Quote(s)
}

// escapeLine is s with what a line should not hold as it is escaped as Go
// writes it in a quoted string (control characters, bidi overrides and
// other invisible format characters, bytes that are not UTF-8); the rest,
// quotes and backslashes included, is left as it is.
func escapeLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == ' ' || strconv.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
