package httpapi

import (
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// GuestObserver hears what the host saw of a driver's requests during
// one turn (WithRetries): each retry, and each request's outcome once the
// retries ended. It may be called from other goroutines than the turn's.
type GuestObserver interface {
	inference.Observer
	// Exchanged reports one request's outcome.
	Exchanged(Exchange)
}

// Exchange is one of a driver's requests as the host saw it once the
// harness's retries ended: the answer's status, or why none came. The
// driver reads the answer; the host keeps what makes a failed turn a
// harness error (HarnessError) and a 2xx body, for the provider's usage.
type Exchange struct {
	Endpoint string // scheme://host:port the request went to
	Status   int    // the answer's HTTP status; 0 when none came
	// Err is why no answer came (Status 0): no connection after the
	// retries, or the endpoint declared unreachable (E-EVL-018).
	Err error
	// Body is a 2xx answer's body as far as the driver read it (at most
	// maxBody bytes), reported when the driver read it to its end or
	// closed it; nil for other answers.
	Body []byte
}

// HarnessError is the harness error a driver's failed turn gets for x,
// nil when x says nothing against the harness (an answer other than 401
// or 403 is the provider's, and the driver's verdict on it stands): the
// endpoint declared unreachable (E-EVL-018, as is), credentials refused
// (E-EVL-014) or no answer after the retries (E-EVL-016). driverText is
// what the driver ended the turn with, quoted in the message.
func (x Exchange) HarnessError(driverText string) error {
	switch {
	case x.Err != nil && errcode.Code(x.Err) != "":
		return x.Err
	case x.Err != nil:
		hint := "the connection kept failing: check that the server at inference.endpoint is up and reachable, or raise --timeout"
		if u := connUnreachable(x.Err); u != nil {
			hint = u.hint
		}
		return errcode.Wrap(errcode.ProviderUnavailable, x.Err, "driver: the model endpoint %s gave no answer once the retries ended (the driver ended the turn with %q)",
			x.Endpoint, Snippet([]byte(driverText))).WithHint("%s", hint)
	case authStatus(x.Status):
		return AuthError("driver", x.Endpoint, x.Status, "the driver ended the turn with "+fmt.Sprintf("%q", Snippet([]byte(driverText))))
	}
	return nil
}

// AuthError is a 401 or 403 answer (E-EVL-014): a harness error, never a
// model failure; detail is what the answer or the driver said of it.
func AuthError(name, endpoint string, status int, detail string) error {
	msg := fmt.Sprintf("%s: the model endpoint %s refused the credentials: HTTP %d", name, endpoint, status)
	if detail != "" {
		msg += " (" + detail + ")"
	}
	return errcode.New(errcode.ProviderAuth, "%s", msg).WithHint("%s", credentialsRefused("").hint)
}

// authStatus says whether status refuses the credentials.
func authStatus(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// exchanged reports the outcome of a driver's request to obs: resp's
// status (a 2xx once its body is read to the end or closed, with the
// body), or err when no answer came. A request ended by its context is
// not reported: the case's deadline or cancellation says why.
func exchanged(obs GuestObserver, endpoint string, resp *http.Response, err error, ctxErr error) {
	switch {
	case ctxErr != nil:
	case err != nil:
		obs.Exchanged(Exchange{Endpoint: endpoint, Err: err})
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		obs.Exchanged(Exchange{Endpoint: endpoint, Status: resp.StatusCode})
	default:
		resp.Body = &keptBody{ReadCloser: resp.Body, report: func(body []byte) {
			obs.Exchanged(Exchange{Endpoint: endpoint, Status: resp.StatusCode, Body: body})
		}}
	}
}

// keptBody keeps a copy of what the driver reads of a 2xx body (at most
// maxBody bytes) and reports it once, at the end of the body or when it
// is closed.
type keptBody struct {
	io.ReadCloser
	mu     sync.Mutex
	kept   []byte
	done   bool
	report func([]byte)
}

func (b *keptBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	if room := maxBody - len(b.kept); room > 0 {
		b.kept = append(b.kept, p[:min(n, room)]...)
	}
	b.mu.Unlock()
	if err == io.EOF {
		b.finish()
	}
	return n, err
}

func (b *keptBody) Close() error {
	err := b.ReadCloser.Close()
	b.finish()
	return err
}

func (b *keptBody) finish() {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return
	}
	b.done = true
	kept := b.kept
	b.mu.Unlock()
	b.report(kept)
}
