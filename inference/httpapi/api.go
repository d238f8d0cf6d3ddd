// Package httpapi is the HTTP exchange the native model clients share: a
// per-endpoint bound on concurrent requests, retries of 429, 5xx and
// connection failures with exponential backoff and jitter that honour
// Retry-After within the case's deadline, an answer of status 400 or
// more (once retries are spent) ending the session failed with the text
// murmur's driver gives it (Failed), as the driver would, and a W3C
// traceparent header when the case is traced. The wire
// formats (anthropic/, openai/) plug in as an API.
package httpapi

import (
	"strings"

	"net/http"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// API is one provider API bound to one case's inference config: where to
// send, how to encode the canonical request and decode the answer. An API
// is immutable and safe for concurrent use.
type API interface {
	// Name is the API's short name for messages ("anthropic", "openai").
	Name() string
	// URL is the full request URL.
	URL() string
	// Header sets the API's headers (auth, version, content type).
	Header(h http.Header)
	// Encode turns a canonical request into the API's request body.
	Encode(req *inference.Request) ([]byte, error)
	// Decode turns a 2xx body into a canonical response. The body is
	// untrusted: Decode never panics and says what is wrong.
	Decode(body []byte) (*inference.Response, error)
	// Failure reads a non-2xx body.
	Failure(status int, body []byte) Failure
	// A Decode that finds what murmur's driver would have ended the turn
	// with (status error) returns Failed(message), not an error: errors
	// are harness errors (E-EVL-013).
}

// Failure is what an error body says.
type Failure struct {
	Message string // the provider's message, "" when the body had none
	// Final marks a response that would be retried by its status but must
	// not be (OpenAI's 429 insufficient_quota: billing, not load).
	Final bool
	// Text is what murmur's driver for this API ends the session with on
	// this answer (status 400 or more, once the harness's retries are
	// spent): result.txt is "error: " + ErrorData(Text). "" means
	// StatusText(status, body).
	Text string
}

// Snippet is the start of an unparseable body, for a message: at most 200
// bytes, one line, valid UTF-8.
func Snippet(body []byte) string {
	s := strings.ToValidUTF8(strings.Join(strings.Fields(string(body)), " "), "?")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "..."
	}
	return s
}
