package wasi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// wasi:http's resources as this host keeps them. A request is built from
// fields and an outgoing body buffered up to Env.MaxHTTPBodyBytes;
// outgoing-handler.handle (wasi_http_handler.go) matches it against the
// guest's allow list and sends it.

// httpFields is a fields resource: lowercased names in insertion order.
// Immutable fields (a response's headers) refuse changes.
type httpFields struct {
	names     []string
	values    [][]byte
	immutable bool
}

// httpRequest is an outgoing-request.
type httpRequest struct {
	method    string
	scheme    string // "" until set: https
	authority *string
	path      *string
	headers   *httpFields
	body      *httpOutBody
	bodyTaken bool
}

// httpOutBody is an outgoing-body: the request's buffered body.
type httpOutBody struct {
	buf         bytes.Buffer
	max         int64
	over        bool
	finished    bool
	dropped     bool
	streamTaken bool
	future      *httpFuture // set when handle ran before finish
}

// httpOptions is a request-options resource. Its timeouts are kept for
// the guest to read back but not applied: the call's deadline bounds
// every request.
type httpOptions struct{ timeouts [3]*uint64 }

// httpResponse is an incoming-response.
type httpResponse struct {
	resp     *http.Response
	consumed bool
	net      *netState
}

// httpInBody is an incoming-body.
type httpInBody struct {
	resp        *http.Response
	streamTaken bool
	max         int64
}

func (b *httpInBody) Close() { _ = b.resp.Body.Close() }

// httpTrailers is a future-trailers: HTTP/1.1 responses here never carry
// trailers the guest can see, so it is ready and empty.
type httpTrailers struct{}

// bodyWriter is the output-stream of an outgoing body.
type bodyWriter struct{ b *httpOutBody }

func (w bodyWriter) Write(p []byte) (int, error) {
	if w.b.finished {
		return 0, fmt.Errorf("outgoing body already finished")
	}
	if int64(w.b.buf.Len())+int64(len(p)) > w.b.max {
		w.b.over = true
		n := uint64(int64(w.b.buf.Len()) + int64(len(p)))
		return 0, &httpErr{code: ecRequestBodySize, size: &n,
			text: fmt.Sprintf("request body exceeds murmur-eval's limit of %d bytes", w.b.max)}
	}
	return w.b.buf.Write(p)
}

// addHTTP adds wasi:http/types and wasi:http/outgoing-handler. Functions
// not listed here are made per import by httpUnimplemented.
func addHTTP(all map[string]iface) {
	types := iface{}
	addFields(types)
	addRequest(types)
	addResponse(types)
	for r, fn := range map[string]func(context.Context, *Host, []uint64){
		"fields":                   dropFn[*httpFields]("fields"),
		"outgoing-request":         dropFn[*httpRequest]("outgoing-request"),
		"outgoing-body":            dropOutBody,
		"request-options":          dropFn[*httpOptions]("request-options"),
		"incoming-response":        dropFn[*httpResponse]("incoming-response"),
		"incoming-body":            dropFn[*httpInBody]("incoming-body"),
		"future-trailers":          dropFn[*httpTrailers]("future-trailers"),
		"future-incoming-response": dropFn[*httpFuture]("future-incoming-response"),
	} {
		types["[resource-drop]"+r] = hostFunc{abi.Sig(i32), nil, fn}
	}
	all["wasi:http/types"] = types
	all["wasi:http/outgoing-handler"] = iface{"handle": {abi.Sig(i32, i32, i32, i32), nil, handle}}
}

// methods are wasi:http's method cases in declaration order.
func methods() [9]string {
	return [9]string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}
}

func addRequest(types iface) {
	// optString reads an option<string> flattened as (tag, ptr, len).
	optString := func(s *Host, tag, p, n uint64) *string {
		if uint32(tag) == 0 {
			return nil
		}
		v := s.Str(uint32(p), uint32(n))
		return &v
	}
	okIf := func(st []uint64, ok bool) {
		st[0] = 1
		if ok {
			st[0] = 0
		}
	}
	types["[constructor]outgoing-request"] = hostFunc{abi.Sig(i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		f := abi.DropAs[*httpFields](&s.H, uint32(st[0]), "fields")
		st[0] = uint64(s.H.Add(&httpRequest{method: "GET", headers: f}))
	}}
	types["[method]outgoing-request.set-method"] = hostFunc{abi.Sig(i32, i32, i32, i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		r := req(s, st[0])
		switch tag := uint32(st[1]); {
		case tag < 9:
			r.method = methods()[tag]
			okIf(st, true)
		case tag == 9:
			m := s.Str(uint32(st[2]), uint32(st[3]))
			ok := validName(m)
			if ok {
				r.method = m
			}
			okIf(st, ok)
		default:
			abi.Trapf("method tag %d out of range", tag)
		}
	}}
	types["[method]outgoing-request.set-scheme"] = hostFunc{abi.Sig(i32, i32, i32, i32, i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		r := req(s, st[0])
		if uint32(st[1]) == 0 {
			r.scheme = ""
			okIf(st, true)
			return
		}
		switch tag := uint32(st[2]); tag {
		case 0:
			r.scheme = "http"
		case 1:
			r.scheme = "https"
		case 2:
			v := strings.ToLower(s.Str(uint32(st[3]), uint32(st[4])))
			if v == "" || strings.ContainsAny(v, ":/ ") {
				okIf(st, false)
				return
			}
			r.scheme = v
		default:
			abi.Trapf("scheme tag %d out of range", tag)
		}
		okIf(st, true)
	}}
	types["[method]outgoing-request.set-authority"] = hostFunc{abi.Sig(i32, i32, i32, i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		r := req(s, st[0])
		a := optString(s, st[1], st[2], st[3])
		ok := a == nil || !strings.ContainsAny(*a, "/?#@ \\")
		if ok {
			r.authority = a
		}
		okIf(st, ok)
	}}
	types["[method]outgoing-request.set-path-with-query"] = hostFunc{abi.Sig(i32, i32, i32, i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		r := req(s, st[0])
		p := optString(s, st[1], st[2], st[3])
		ok := p == nil || (!strings.ContainsAny(*p, " #\r\n") && (*p == "" || (*p)[0] == '/' || (*p)[0] == '?'))
		if ok {
			r.path = p
		}
		okIf(st, ok)
	}}
	addBody(types)
	addOptions(types)
}

func req(s *Host, h uint64) *httpRequest {
	return abi.Get[*httpRequest](&s.H, uint32(h), "outgoing-request")
}

func addBody(types iface) {
	types["[method]outgoing-request.headers"] = hostFunc{abi.Sig(i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		st[0] = uint64(s.H.Add(req(s, st[0]).headers))
	}}
	types["[method]outgoing-request.body"] = hostFunc{abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		r := req(s, st[0])
		ret := uint32(st[1])
		s.takeOnce(ret, &r.bodyTaken, func() any {
			r.body = &httpOutBody{max: s.maxBody()}
			return r.body
		})
	}}
	types["[method]outgoing-body.write"] = hostFunc{abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		b := abi.Get[*httpOutBody](&s.H, uint32(st[0]), "outgoing-body")
		ret := uint32(st[1])
		s.takeOnce(ret, &b.streamTaken, func() any { return &outStream{w: bodyWriter{b}} })
	}}
	types["[static]outgoing-body.finish"] = hostFunc{abi.Sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		b := abi.Get[*httpOutBody](&s.H, uint32(st[0]), "outgoing-body")
		s.H.Drop(uint32(st[0]))
		if uint32(st[1]) == 1 { // trailers are accepted and not sent
			abi.DropAs[*httpFields](&s.H, uint32(st[2]), "trailers")
		}
		ret := uint32(st[3])
		b.finished = true
		if b.over {
			n := uint64(b.buf.Len())
			e := &httpErr{code: ecRequestBodySize, size: &n}
			s.U8(ret, 1)
			s.lowerErrorCode(ctx, ret+8, e)
			if b.future != nil {
				b.future.fail(e)
			}
			return
		}
		s.U8(ret, 0)
		if b.future != nil {
			b.future.start()
		}
	}}
}

func addOptions(types iface) {
	types["[constructor]request-options"] = hostFunc{nil, abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		st[0] = uint64(s.H.Add(&httpOptions{}))
	}}
	for i, n := range []string{"connect-timeout", "first-byte-timeout", "between-bytes-timeout"} {
		types["[method]request-options.set-"+n] = hostFunc{abi.Sig(i32, i32, i64), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
			o := abi.Get[*httpOptions](&s.H, uint32(st[0]), "request-options")
			o.timeouts[i] = nil
			if uint32(st[1]) == 1 {
				v := st[2]
				o.timeouts[i] = &v
			}
			st[0] = 0
		}}
		types["[method]request-options."+n] = hostFunc{abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			o := abi.Get[*httpOptions](&s.H, uint32(st[0]), "request-options")
			ret := uint32(st[1])
			s.U8(ret, 0)
			if v := o.timeouts[i]; v != nil {
				s.U8(ret, 1)
				s.U64(ret+8, *v)
			}
		}}
	}
}

// takeOnce lowers result<own<T>, ()> at ret for a child resource a
// parent gives out once (a request's body, a body's stream, a response's
// body): the second call is err.
func (s *Host) takeOnce(ret uint32, taken *bool, child func() any) {
	if *taken {
		s.U8(ret, 1)
		return
	}
	*taken = true
	s.U8(ret, 0)
	s.U32(ret+4, s.H.Add(child()))
}

// dropOutBody drops an outgoing body; a request waiting for it fails, as
// a body dropped unfinished means a truncated request.
func dropOutBody(ctx context.Context, s *Host, st []uint64) {
	b := abi.DropAs[*httpOutBody](&s.H, uint32(st[0]), "outgoing-body")
	b.dropped = true
	if b.future != nil && !b.finished {
		msg := "outgoing body dropped without outgoing-body.finish"
		b.future.fail(&httpErr{code: ecInternal, text: msg, msg: &msg})
	}
}

// IsHTTP reports whether an unversioned interface name is wasi:http's.
func IsHTTP(name string) bool { return strings.HasPrefix(name, "wasi:http/") }

// Unimplemented is a host function with the import's own signature for a
// wasi:http function this host does not provide (the incoming side,
// request getters): linking succeeds, calling it stops the guest.
func Unimplemented(iface, fn string, params, results []api.ValueType) abi.Func[*Host] {
	return abi.Func[*Host]{Params: params, Results: results, Fn: func(ctx context.Context, s *Host, st []uint64) {
		abi.Trapf("%s.%s is not implemented by murmur-eval's wasi:http host (outgoing requests only)", iface, fn)
	}}
}
