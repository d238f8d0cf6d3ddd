package wasi

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// wasi:http error-code cases this host gives (their index in the WIT's
// variant).
const (
	ecDNSTimeout         = 0
	ecDNSError           = 1
	ecDestUnavailable    = 3
	ecConnRefused        = 6
	ecConnTerminated     = 7
	ecConnTimeout        = 8
	ecTLSProtocol        = 12
	ecTLSCertificate     = 13
	ecTLSAlert           = 14
	ecRequestDenied      = 15
	ecRequestURIInvalid  = 19
	ecRequestBodySize    = 17
	ecResponseIncomplete = 25
	ecResponseBodySize   = 28
	ecProtocolError      = 35
	ecInternal           = 38
)

// defaultMaxHTTPBody is Env.MaxHTTPBodyBytes's default.
const defaultMaxHTTPBody = 16 << 20

// httpErr is one error-code value: its case and the payload the case
// carries (DNS rcode, TLS alert, a size, internal-error's message).
type httpErr struct {
	code    byte
	text    string  // for Go's error interface and stream errors
	msg     *string // DNS-error rcode, TLS alert message, internal-error message
	size    *uint64 // body-size cases
	alertID *uint8
}

func (e *httpErr) Error() string {
	if e.text != "" {
		return e.text
	}
	return fmt.Sprintf("wasi:http error-code %d", e.code)
}

// lowerErrorCode stores e as an error-code (size 32, align 8: the case
// byte at 0, the payload at 8) at ptr.
func (s *Host) lowerErrorCode(ctx context.Context, ptr uint32, e *httpErr) {
	s.Write(ptr, make([]byte, 32))
	s.U8(ptr, e.code)
	p := ptr + 8
	optStr := func(at uint32, v *string) {
		if v != nil {
			sp, sn := s.PutString(ctx, *v)
			s.U8(at, 1)
			s.U32(at+4, sp)
			s.U32(at+8, sn)
		}
	}
	switch e.code {
	case ecDNSError: // {rcode: option<string>, info-code: option<u16>}
		optStr(p, e.msg)
	case ecTLSAlert: // {alert-id: option<u8>, alert-message: option<string>}
		if e.alertID != nil {
			s.U8(p, 1)
			s.U8(p+1, *e.alertID)
		}
		optStr(p+4, e.msg)
	case ecRequestBodySize, ecResponseBodySize: // option<u64>
		if e.size != nil {
			s.U8(p, 1)
			s.U64(p+8, *e.size)
		}
	case ecInternal: // option<string>
		optStr(p, e.msg)
	}
}

// netState is one call's HTTP traffic: requests run on ctx, which ends
// with the call; close also closes every body still open.
type netState struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	client *http.Client
	owned  bool
	open   []io.Closer
	closed bool
}

func (n *netState) init(ctx context.Context, env *Config) {
	if n.ctx != nil {
		return
	}
	n.ctx, n.cancel = context.WithCancel(ctx)
	n.client = env.HTTP
	if n.client == nil {
		n.client, n.owned = NewHTTPClient(), true
	}
}

// keep registers a response body to close when the call ends; false when
// it has ended already.
func (n *netState) keep(c io.Closer) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return false
	}
	n.open = append(n.open, c)
	return true
}

func (n *netState) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || n.ctx == nil {
		n.closed = true
		return
	}
	n.closed = true
	n.cancel()
	for _, c := range n.open {
		_ = c.Close()
	}
	if n.owned {
		n.client.CloseIdleConnections()
	}
}

// NewHTTPClient is the client a call gets when Config.HTTP is nil: Go's
// default transport without proxies from the environment, TLS verified
// against the system roots, and redirects returned to the guest as the
// 3xx they are (wasi:http does not follow them).
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	return &http.Client{
		Transport:     t,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (s *Host) maxBody() int64 {
	if s.env.MaxHTTPBodyBytes > 0 {
		return s.env.MaxHTTPBodyBytes
	}
	return defaultMaxHTTPBody
}

// httpFuture is a future-incoming-response: done is closed once resp or
// err is set.
type httpFuture struct {
	done    chan struct{}
	once    sync.Once
	resp    *http.Response
	err     *httpErr
	taken   bool
	send    func() // starts the request (nil once started)
	net     *netState
	started bool
}

func (f *httpFuture) fail(e *httpErr) {
	f.once.Do(func() {
		f.err = e
		close(f.done)
	})
}

// start sends the request on its own goroutine.
func (f *httpFuture) start() {
	if f.started {
		return
	}
	f.started = true
	go f.send()
}

// handle is outgoing-handler.handle: result<own<future-incoming-response>,
// error-code>, the tag at 0 and the payload at 8.
func handle(ctx context.Context, s *Host, st []uint64) {
	r := abi.DropAs[*httpRequest](&s.H, uint32(st[0]), "outgoing-request")
	if uint32(st[1]) == 1 {
		abi.DropAs[*httpOptions](&s.H, uint32(st[2]), "request-options")
	}
	ret := uint32(st[3])
	f, e := s.send(ctx, r)
	if e != nil {
		s.U8(ret, 1)
		s.lowerErrorCode(ctx, ret+8, e)
		return
	}
	s.U8(ret, 0)
	s.U32(ret+8, s.H.Add(f))
}

// send checks r against the allow list and starts it (at once, or when
// its body is finished).
func (s *Host) send(ctx context.Context, r *httpRequest) (*httpFuture, *httpErr) {
	if r.authority == nil {
		return nil, &httpErr{code: ecRequestURIInvalid, text: "request has no authority"}
	}
	path := ""
	if r.path != nil {
		path = *r.path
	}
	scheme, target, t, e := requestURL(r.scheme, *r.authority, path)
	if e != nil {
		return nil, e
	}
	if !capsule.Allowed(s.env.Network, t) {
		if s.env.OnHTTPDenied != nil {
			s.env.OnHTTPDenied(t)
		}
		return nil, &httpErr{code: ecRequestDenied, text: t.Entry() + " is not in the network allow list"}
	}
	if scheme != "http" && scheme != "https" {
		return nil, &httpErr{code: ecProtocolError, text: "unsupported scheme " + scheme}
	}
	if r.body != nil && r.body.over {
		n := uint64(r.body.buf.Len())
		return nil, &httpErr{code: ecRequestBodySize, size: &n}
	}
	s.net.init(ctx, &s.env)
	req, err := http.NewRequestWithContext(s.net.ctx, r.method, target, nil)
	if err != nil {
		return nil, &httpErr{code: ecRequestURIInvalid, text: err.Error()}
	}
	req.Header = r.headers.header()
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header["User-Agent"] = []string{""} // Go adds none; wasi:http sends what the guest set
	}
	f := &httpFuture{done: make(chan struct{}), net: &s.net}
	body := r.body
	f.send = func() {
		if body != nil && body.buf.Len() > 0 {
			b := body.buf.Bytes()
			req.ContentLength = int64(len(b))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytesReader(b)), nil }
			req.Body, _ = req.GetBody()
		}
		resp, err := f.net.client.Do(req)
		if err != nil {
			f.fail(mapHTTPError(err))
			return
		}
		if !f.net.keep(resp.Body) {
			_ = resp.Body.Close()
			f.fail(&httpErr{code: ecInternal, text: "call ended"})
			return
		}
		f.once.Do(func() {
			f.resp = resp
			close(f.done)
		})
	}
	if body == nil || body.finished {
		f.start()
	} else if body.dropped {
		msg := "outgoing body dropped without outgoing-body.finish"
		return nil, &httpErr{code: ecInternal, text: msg, msg: &msg}
	} else {
		body.future = f
	}
	return f, nil
}

// requestURL is the URL a request goes to and the target the allow list
// judges: no scheme means https (murmur's host uses TLS then), the port
// is explicit or the scheme's default. An authority with anything but a
// host and a port is refused, so that the host Go dials is the host
// judged.
func requestURL(scheme, authority, path string) (string, string, capsule.Target, *httpErr) {
	if scheme == "" {
		scheme = "https"
	}
	if authority == "" || strings.ContainsAny(authority, "/?#@\\ \t\r\n%") {
		return "", "", capsule.Target{}, &httpErr{code: ecRequestURIInvalid, text: "invalid authority " + authority}
	}
	switch {
	case path == "":
		path = "/"
	case path[0] == '?':
		path = "/" + path
	case path[0] != '/' || strings.ContainsAny(path, " #\r\n\t"):
		return "", "", capsule.Target{}, &httpErr{code: ecRequestURIInvalid, text: "invalid path " + path}
	}
	t, ok := capsule.TargetOf(scheme + "://" + authority + "/")
	if !ok {
		return "", "", capsule.Target{}, &httpErr{code: ecRequestURIInvalid, text: "invalid authority " + authority}
	}
	return scheme, scheme + "://" + authority + path, t, nil
}

// futureGet is future-incoming-response.get:
// option<result<result<own<incoming-response>, error-code>>>, tags at 0, 8
// and 16, the response or error-code at 24.
func futureGet(ctx context.Context, s *Host, st []uint64) {
	f := abi.Get[*httpFuture](&s.H, uint32(st[0]), "future-incoming-response")
	ret := uint32(st[1])
	select {
	case <-f.done:
	default:
		s.U8(ret, 0)
		return
	}
	if f.err != nil && ctx.Err() != nil {
		abi.Trapf("interrupted while waiting for an HTTP response: %v", context.Cause(ctx))
	}
	s.U8(ret, 1)
	if f.taken {
		s.U8(ret+8, 1)
		return
	}
	f.taken = true
	s.U8(ret+8, 0)
	if f.err != nil {
		s.U8(ret+16, 1)
		s.lowerErrorCode(ctx, ret+24, f.err)
		return
	}
	s.U8(ret+16, 0)
	s.U32(ret+24, s.H.Add(&httpResponse{resp: f.resp, net: f.net}))
}

// close releases a response nobody took.
func (f *httpFuture) Close() {
	select {
	case <-f.done:
		if !f.taken && f.resp != nil {
			_ = f.resp.Body.Close()
		}
	default:
	}
}

// mapHTTPError turns a Go transport error into the error-code wasmtime
// gives for the same failure where one fits, else internal-error with
// Go's text.
func mapHTTPError(err error) *httpErr {
	text := err.Error()
	var dns *net.DNSError
	var alert tls.AlertError
	var recHdr tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	var nerr net.Error
	var op *net.OpError
	switch {
	case errors.As(err, &dns) && dns.IsTimeout:
		return &httpErr{code: ecDNSTimeout, text: text}
	case errors.As(err, &dns):
		rc := dns.Err
		return &httpErr{code: ecDNSError, text: text, msg: &rc}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &httpErr{code: ecConnRefused, text: text}
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return &httpErr{code: ecDestUnavailable, text: text}
	case errors.As(err, &op) && op.Op == "dial" && op.Timeout():
		return &httpErr{code: ecConnTimeout, text: text}
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &invalidCert):
		return &httpErr{code: ecTLSCertificate, text: text}
	case errors.As(err, &alert):
		id, m := uint8(alert), alert.Error()
		return &httpErr{code: ecTLSAlert, text: text, alertID: &id, msg: &m}
	case errors.As(err, &recHdr), strings.Contains(text, "server gave HTTP response to HTTPS client"):
		// Go's transport replaces the record-header error with that text.
		return &httpErr{code: ecTLSProtocol, text: text}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return &httpErr{code: ecConnTerminated, text: text}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &httpErr{code: ecResponseIncomplete, text: text}
	case errors.As(err, &nerr) && nerr.Timeout():
		return &httpErr{code: ecConnTimeout, text: text}
	}
	return &httpErr{code: ecInternal, text: text, msg: &text}
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
