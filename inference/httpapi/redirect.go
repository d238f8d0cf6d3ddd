package httpapi

import (
	"net/http"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// maxLocation bounds how much of a Location header a message quotes.
const maxLocation = 200

// noRedirects is the http.Client's CheckRedirect: a model request never
// follows a redirect. The request carries the API key (x-api-key,
// Authorization, driver.config headers) and the whole conversation; Go's
// client drops only Authorization, and only when the host changes, so a
// followed redirect would hand the rest to whatever origin the server
// names. The 3xx itself comes back as the answer and redirected reports
// it.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// redirected is the error for a 3xx answer: not retried, naming the status
// and where the server pointed, with a hint to point the endpoint there.
func redirected(api API, resp *http.Response) error {
	loc := resp.Header.Get("Location")
	where := "without a Location"
	if loc != "" {
		if len(loc) > maxLocation {
			loc = loc[:maxLocation] + "..."
		}
		where = "to " + strconv.Quote(loc)
	}
	return errcode.New(errcode.ProviderRejected, "%s: HTTP %d: the server redirects %s; model requests do not follow redirects", api.Name(), resp.StatusCode, where).
		WithHint("set inference.endpoint (or driver.config.path) to the address the server redirects to: murmur-eval never follows a model server's redirect, so the API key and the conversation go to the endpoint's own scheme, host and port only")
}
