package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

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
// their data, written as they write it (serde_json): keys sorted, no HTML
// escaping, U+2028 and U+2029 raw.
func ErrorData(message string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Error      string `json:"error"`
		StopReason string `json:"stop_reason"`
	}{message, inference.StopError})
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
