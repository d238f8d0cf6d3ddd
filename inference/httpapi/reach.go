package httpapi

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// DefaultUnreachableAfter is how many failed first requests make an
// endpoint unreachable (Options.UnreachableAfter).
const DefaultUnreachableAfter = 3

// unreachable is why a request could not reach an endpoint at all: no
// connection (refused, DNS, TLS, no route) or credentials refused. Another
// attempt does not change such a cause while nothing on the other side
// changes.
type unreachable struct {
	cause string // "connection refused", "HTTP 401: ...", ...
	hint  string
}

// reach remembers, per endpoint, whether any request got through, and
// declares an endpoint unreachable when its first requests all failed for
// an unreachable cause: the run then stops starting cases within seconds
// instead of every case retrying for its whole budget (RATIONALE.md). An
// endpoint that answered once is never declared unreachable: a flaky
// endpoint keeps the retries. Safe for concurrent use.
type reach struct {
	after  int
	notify func(error)
	mu     sync.Mutex
	eps    map[string]*endpointReach
}

type endpointReach struct {
	answered bool
	failed   int
	err      error // set once declared unreachable
}

func newReach(after int, notify func(error)) *reach {
	if after == 0 {
		after = DefaultUnreachableAfter
	}
	return &reach{after: after, notify: notify, eps: map[string]*endpointReach{}}
}

func (r *reach) get(url string) *endpointReach {
	e := r.eps[url]
	if e == nil {
		e = &endpointReach{}
		r.eps[url] = e
	}
	return e
}

// declared returns the error of an endpoint declared unreachable, nil
// otherwise.
func (r *reach) declared(url string) error {
	if r.after < 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.get(url).err
}

// answered records a response that got through (any status but 401/403).
func (r *reach) answered(url string) {
	r.mu.Lock()
	r.get(url).answered = true
	r.mu.Unlock()
}

// failed records a request that could not reach the endpoint; it returns
// the endpoint's unreachable error once it is declared so.
func (r *reach) failed(api API, u *unreachable) error {
	if r.after < 0 {
		return nil
	}
	r.mu.Lock()
	e := r.get(api.URL())
	if e.err != nil || e.answered {
		err := e.err
		r.mu.Unlock()
		return err
	}
	e.failed++
	if e.failed < r.after {
		r.mu.Unlock()
		return nil
	}
	e.err = errcode.New(errcode.EndpointUnreachable, "%s: the model endpoint %s cannot be reached: %s (its first %d requests all failed, none got through)",
		api.Name(), api.URL(), u.cause, e.failed).WithHint("%s", u.hint)
	err := e.err
	r.mu.Unlock()
	if r.notify != nil {
		r.notify(err)
	}
	return err
}

// credentialsRefused is the cause of a 401 or 403 answer; msg names it.
func credentialsRefused(msg string) *unreachable {
	return &unreachable{cause: "it refused the credentials (" + msg + ")",
		hint: "check inference.api_key in murmur.yaml and the environment variable it names (.env is read only for ${VAR} in api_key)"}
}

// connUnreachable classifies a request that got no response: nil when the
// failure may pass (a reset or a timeout after connecting).
func connUnreachable(err error) *unreachable {
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var op *net.OpError
	var alert tls.AlertError
	switch {
	case errors.As(err, &dns):
		return &unreachable{cause: fmt.Sprintf("the host %q does not resolve (%v)", dns.Name, dns.Err),
			hint: "check the host name in inference.endpoint in murmur.yaml (and the DNS or HTTPS_PROXY settings of this machine)"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &unreachable{cause: "connection refused",
			hint: "nothing listens there: start the model server, or fix the host and port of inference.endpoint in murmur.yaml"}
	// net/http replaces the RecordHeaderError of a plain-HTTP answer with
	// a message of its own.
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return &unreachable{cause: "the server does not speak TLS (" + err.Error() + ")",
			hint: "the endpoint is plain HTTP: use http:// in inference.endpoint (loopback only), or the server's HTTPS port"}
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify), errors.As(err, &alert):
		return &unreachable{cause: "its TLS certificate was not accepted (" + err.Error() + ")",
			hint: "check the host in inference.endpoint, or have the server present a certificate this machine trusts"}
	case errors.As(err, &op) && op.Op == "dial":
		return &unreachable{cause: "cannot connect (" + op.Err.Error() + ")",
			hint: "check the address in inference.endpoint, and any firewall or proxy between this machine and it"}
	}
	return nil
}
