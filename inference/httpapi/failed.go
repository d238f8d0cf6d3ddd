package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// Failed is the turn of a built-in provider standing in for murmur's
// driver when that driver would have returned status error with message:
// the driver's data is the canonical error response
// {"error":message,"stop_reason":"error"}, so the loop ends the session
// failed with result.txt "error: " + that data and no inference event, as
// it does for the driver component (inference/driver). Raw is the
// recording line a driver's failed turn gets, so --record and --replay
// keep the ending.
func Failed(message string) *inference.Response {
	return FailedData(ErrorData(message))
}

// FailedData is Failed for a driver whose data is not the canonical error
// response: data is the session's result.txt after "error: ".
func FailedData(data string) *inference.Response {
	line, err := json.Marshal(struct {
		Error      string `json:"error"`
		Failed     bool   `json:"murmur_eval_driver_failed"`
		StopReason string `json:"stop_reason"`
	}{data, true, inference.StopError})
	if err != nil { // a struct of strings and a bool always encodes
		line = []byte(`{"error":"","murmur_eval_driver_failed":true,"stop_reason":"error"}`)
	}
	return &inference.Response{StopReason: inference.StopError, Error: data, DriverFailed: true,
		Content: json.RawMessage("[]"), Raw: line}
}

// ErrorData is the canonical error response murmur's drivers return as
// their data, written as they write it (DriverJSON).
func ErrorData(message string) string {
	return DriverJSON(struct {
		Error      string `json:"error"`
		StopReason string `json:"stop_reason"`
	}{message, inference.StopError})
}

// DriverJSON writes v as murmur's drivers write JSON (serde_json): no HTML
// escaping, U+2028 and U+2029 raw; maps with their keys sorted, so
// structs should declare their fields in sorted order. A value that does
// not encode gives "null".
func DriverJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return "null"
	}
	return rawLineSeparators(strings.TrimSuffix(b.String(), "\n"))
}

// rawLineSeparators unescapes the \u2028 and \u2029 encoding/json writes
// (an escaped backslash before "u2028" is left alone).
func rawLineSeparators(s string) string {
	if !strings.Contains(s, `\u202`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], `\u2028`):
			b.WriteString("\u2028")
			i += 5
		case strings.HasPrefix(s[i:], `\u2029`):
			b.WriteString("\u2029")
			i += 5
		case s[i] == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// StatusText is the message murmur's drivers end a turn with on an HTTP
// status of 400 or more: "HTTP <status>: <body>", the body as text.
func StatusText(status int, body []byte) string {
	return fmt.Sprintf("HTTP %d: %s", status, strings.ToValidUTF8(string(body), "\uFFFD"))
}

// UTF8Error is "" for valid UTF-8, else what Rust's from_utf8 says of the
// first bad sequence, the reason murmur's drivers give for refusing a
// body: "invalid utf-8 sequence of 1 bytes from index 3", or "incomplete
// utf-8 byte sequence from index 3" when the body ends inside one.
func UTF8Error(b []byte) string {
	if utf8.Valid(b) {
		return ""
	}
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	if !utf8.FullRune(b[i:]) {
		return fmt.Sprintf("incomplete utf-8 byte sequence from index %d", i)
	}
	return fmt.Sprintf("invalid utf-8 sequence of %d bytes from index %d", invalidLen(b[i:]), i)
}

// invalidLen is Rust's Utf8Error::error_len for the invalid sequence at
// the start of b: 1 when its first or second byte is wrong, else how far
// its continuation bytes go (2 or 3).
func invalidLen(b []byte) int {
	lo, hi := byte(0x80), byte(0xBF)
	want := 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		want = 2
	case c == 0xE0:
		want, lo = 3, 0xA0
	case c == 0xED:
		want, hi = 3, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		want = 3
	case c == 0xF0:
		want, lo = 4, 0x90
	case c == 0xF4:
		want, hi = 4, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		want = 4
	default:
		return 1
	}
	if len(b) < 2 || b[1] < lo || b[1] > hi {
		return 1
	}
	n := 2
	for n < want-1 && n < len(b) && b[n]&0xC0 == 0x80 {
		n++
	}
	return n
}
