package jsonstr_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/internal/jsonstr"
)

// reference is what the encoder each style matches writes for s.
func reference(t *testing.T, s string, st jsonstr.Style) string {
	t.Helper()
	switch st {
	case jsonstr.Marshal:
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	case jsonstr.NoHTML:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	default:
		return httpapi.DriverJSON(s)
	}
}

// samples cover every escape, each style's difference, bytes that are not
// UTF-8, and runs longer and shorter than the eight bytes plainRun reads at
// a time, with the special byte at each place of a word.
func samples() []string {
	s := []string{
		"", "a", "plain ascii text", `"`, `\`, "<", ">", "&", "<b>&amp;</b>", "\b\f\n\r\t", "\x00\x01\x1f\x7f",
		"\u2028", "\u2029", "a\u2028b\u2029c", "\xe2\x80", "\xe2\x80\xa8\xe2", "é 日本 👍🏽", "\xff", "a\xffb", "\xc3\x28",
		"\ufffd", `\u2028`, `{"event_type":"tool_call","input":{"q":"<x>"}}`,
		strings.Repeat("0123456789", 10), strings.Repeat("é", 17),
	}
	for _, special := range []string{`"`, `\`, "<", ">", "&", "\n", "\x00", "\u2028", "\xff", "é", "'", "=", "?", "|", "~"} {
		for pos := range 17 {
			s = append(s, strings.Repeat("x", pos)+special+strings.Repeat("y", 16-pos))
		}
	}
	return s
}

func TestAppendMatchesTheEncoders(t *testing.T) {
	for _, st := range []jsonstr.Style{jsonstr.Marshal, jsonstr.NoHTML, jsonstr.Driver} {
		for _, s := range samples() {
			got, valid := jsonstr.Append([]byte("prefix:"), s, st)
			if want := "prefix:" + reference(t, s, st); string(got) != want {
				t.Errorf("style %d: Append(%q) = %s, want %s", st, s, got, want)
			}
			if valid != utf8.ValidString(s) {
				t.Errorf("style %d: Append(%q) valid = %v", st, s, valid)
			}
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range samples() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, st := range []jsonstr.Style{jsonstr.Marshal, jsonstr.NoHTML, jsonstr.Driver} {
			got, valid := jsonstr.Append(nil, s, st)
			if want := reference(t, s, st); string(got) != want || valid != utf8.ValidString(s) {
				t.Fatalf("style %d: Append(%q) = %s, %v; want %s, %v", st, s, got, valid, want, utf8.ValidString(s))
			}
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	line := strings.Repeat(`{"event_type":"tool_result","content":"a plain result, with <html> & \"quotes\""},`, 8)
	buf := make([]byte, 0, 4096)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		buf, _ = jsonstr.Append(buf[:0], line, jsonstr.Marshal)
	}
}
