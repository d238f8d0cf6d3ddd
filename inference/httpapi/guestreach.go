package httpapi

import (
	"fmt"
	"net/http"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// guestEndpoint names a driver's endpoint (scheme://host:port) for the
// Client's reach bookkeeping, which wants an API's name and URL only.
type guestEndpoint string

func (e guestEndpoint) Name() string                               { return "driver" }
func (e guestEndpoint) URL() string                                { return string(e) }
func (e guestEndpoint) Header(http.Header)                         {}
func (e guestEndpoint) Encode(*inference.Request) ([]byte, error)  { return nil, nil }
func (e guestEndpoint) Decode([]byte) (*inference.Response, error) { return nil, nil }
func (e guestEndpoint) Failure(int, []byte) Failure                { return Failure{} }

// reached records what one attempt of a driver's request says about its
// endpoint, as the built-in providers' requests do: an answer (but 401 or
// 403) means it is reachable; a connection that could not be made, or
// credentials refused, counts towards declaring it unreachable, which
// stops the run (OnUnreachable) and fails every later request to it at
// once. The error is the endpoint's once declared unreachable.
func (g *guestTransport) reached(ep guestEndpoint, resp *http.Response, err error) error {
	switch {
	case err != nil:
		if u := connUnreachable(err); u != nil {
			return g.c.reach.failed(ep, u)
		}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return g.c.reach.failed(ep, credentialsRefused(fmt.Sprintf("driver: HTTP %d", resp.StatusCode)))
	default:
		g.c.reach.answered(ep.URL())
	}
	return nil
}
