package component

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/tetratelabs/wazero/api"
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

func (b *httpInBody) close() { _ = b.resp.Body.Close() }

// httpTrailers is a future-trailers: HTTP/1.1 responses here never carry
// trailers the guest can see, so it is ready and empty.
type httpTrailers struct{}

// forbiddenHeaders are the names wasmtime's wasi:http refuses in fields
// (its default forbidden set): the transport owns them.
func forbiddenHeader(name string) bool {
	switch name {
	case "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
		"transfer-encoding", "upgrade", "host", "http2-settings":
		return true
	}
	return false
}

// header-error's cases.
const (
	headerInvalidSyntax = 0
	headerForbidden     = 1
	headerImmutable     = 2
)

func validName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

func validValue(v []byte) bool { return !bytes.ContainsAny(v, "\r\n\x00") }

// check returns -1 when name may be set to vals, else a header-error case.
func (f *httpFields) check(name string, vals ...[]byte) int {
	if f.immutable {
		return headerImmutable
	}
	if !validName(name) {
		return headerInvalidSyntax
	}
	for _, v := range vals {
		if !validValue(v) {
			return headerInvalidSyntax
		}
	}
	if forbiddenHeader(strings.ToLower(name)) {
		return headerForbidden
	}
	return -1
}

func (f *httpFields) del(name string) {
	n, v := f.names[:0], f.values[:0]
	for i, k := range f.names {
		if k != name {
			n, v = append(n, k), append(v, f.values[i])
		}
	}
	f.names, f.values = n, v
}

func (f *httpFields) clone() *httpFields {
	c := &httpFields{names: append([]string(nil), f.names...)}
	for _, v := range f.values {
		c.values = append(c.values, append([]byte(nil), v...))
	}
	return c
}

// header is f as a Go header.
func (f *httpFields) header() http.Header {
	h := http.Header{}
	for i, k := range f.names {
		h[http.CanonicalHeaderKey(k)] = append(h[http.CanonicalHeaderKey(k)], string(f.values[i]))
	}
	return h
}

// fieldsOf is a response's headers as immutable fields, names sorted.
func fieldsOf(h http.Header) *httpFields {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	f := &httpFields{immutable: true}
	for _, k := range keys {
		for _, v := range h[k] {
			f.names = append(f.names, strings.ToLower(k))
			f.values = append(f.values, []byte(v))
		}
	}
	return f
}

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

// cappedBody is a response body that fails past max bytes.
type cappedBody struct {
	r    io.Reader
	n    int64
	max  int64
	over bool
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.over {
		return 0, c.err()
	}
	if room := c.max - c.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		c.over = true
		return 0, c.err()
	}
	return n, err
}

func (c *cappedBody) err() error {
	n := uint64(c.n)
	return &httpErr{code: ecResponseBodySize, size: &n,
		text: fmt.Sprintf("response body exceeds murmur-eval's limit of %d bytes", c.max)}
}

// addHTTP adds wasi:http/types and wasi:http/outgoing-handler. Functions
// not listed here are made per import by httpUnimplemented.
func addHTTP(all map[string]iface) {
	types := iface{}
	addFields(types)
	addRequest(types)
	addResponse(types)
	for r, fn := range map[string]func(context.Context, *state, []uint64){
		"fields":                   dropFn[*httpFields]("fields"),
		"outgoing-request":         dropFn[*httpRequest]("outgoing-request"),
		"outgoing-body":            dropOutBody,
		"request-options":          dropFn[*httpOptions]("request-options"),
		"incoming-response":        dropFn[*httpResponse]("incoming-response"),
		"incoming-body":            dropFn[*httpInBody]("incoming-body"),
		"future-trailers":          dropFn[*httpTrailers]("future-trailers"),
		"future-incoming-response": dropFn[*httpFuture]("future-incoming-response"),
	} {
		types["[resource-drop]"+r] = hostFunc{sig(i32), nil, fn}
	}
	all["wasi:http/types"] = types
	all["wasi:http/outgoing-handler"] = iface{"handle": {sig(i32, i32, i32, i32), nil, handle}}
}

func addFields(types iface) {
	name := fieldName
	types["[constructor]fields"] = hostFunc{nil, sig(i32), func(ctx context.Context, s *state, st []uint64) {
		st[0] = uint64(s.h.add(&httpFields{}))
	}}
	types["[static]fields.from-list"] = hostFunc{sig(i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		list := append([]byte(nil), s.read(uint32(st[0]), 16*uint32(min(st[1], 1<<24)))...)
		ret := uint32(st[2])
		f := &httpFields{}
		for i := 0; i+16 <= len(list); i += 16 {
			k := strings.ToLower(s.str(le32(list[i:]), le32(list[i+4:])))
			v := append([]byte(nil), s.read(le32(list[i+8:]), le32(list[i+12:]))...)
			if e := f.check(k, v); e >= 0 {
				s.u8(ret, 1)
				s.u8(ret+4, byte(e))
				return
			}
			f.names, f.values = append(f.names, k), append(f.values, v)
		}
		s.u8(ret, 0)
		s.u32(ret+4, s.h.add(f))
	}}
	types["[method]fields.get"] = hostFunc{sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		f := get[*httpFields](&s.h, uint32(st[0]), "fields")
		k := name(s, st[1], st[2])
		var vals [][]byte
		for i, n := range f.names {
			if n == k {
				vals = append(vals, f.values[i])
			}
		}
		ptr := uint32(4)
		if len(vals) > 0 {
			ptr = s.alloc(ctx, 4, uint32(8*len(vals)))
		}
		for i, v := range vals {
			p, n := s.putBytes(ctx, v)
			s.u32(ptr+8*uint32(i), p)
			s.u32(ptr+8*uint32(i)+4, n)
		}
		s.u32(uint32(st[3]), ptr)
		s.u32(uint32(st[3])+4, uint32(len(vals)))
	}}
	types["[method]fields.has"] = hostFunc{sig(i32, i32, i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		f := get[*httpFields](&s.h, uint32(st[0]), "fields")
		k := name(s, st[1], st[2])
		st[0] = 0
		for _, n := range f.names {
			if n == k {
				st[0] = 1
			}
		}
	}}
	addFieldsEdit(types)
}

// name is a field name argument, lowercased.
func fieldName(s *state, p, n uint64) string { return strings.ToLower(s.str(uint32(p), uint32(n))) }

// headerResult stores result<_, header-error>: the tag at 0, the error's
// case at 1 (e < 0: ok).
func headerResult(s *state, ret uint32, e int) {
	if e < 0 {
		s.u8(ret, 0)
		return
	}
	s.u8(ret, 1)
	s.u8(ret+1, byte(e))
}

func addFieldsEdit(types iface) {
	name := fieldName
	types["[method]fields.set"] = hostFunc{sig(i32, i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		f := get[*httpFields](&s.h, uint32(st[0]), "fields")
		k := name(s, st[1], st[2])
		list := append([]byte(nil), s.read(uint32(st[3]), 8*uint32(min(st[4], 1<<24)))...)
		var vals [][]byte
		for i := 0; i+8 <= len(list); i += 8 {
			vals = append(vals, append([]byte(nil), s.read(le32(list[i:]), le32(list[i+4:]))...))
		}
		e := f.check(k, vals...)
		if e < 0 {
			f.del(k)
			for _, v := range vals {
				f.names, f.values = append(f.names, k), append(f.values, v)
			}
		}
		headerResult(s, uint32(st[5]), e)
	}}
	types["[method]fields.delete"] = hostFunc{sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		f := get[*httpFields](&s.h, uint32(st[0]), "fields")
		k := name(s, st[1], st[2])
		e := f.check(k)
		if e < 0 {
			f.del(k)
		}
		headerResult(s, uint32(st[3]), e)
	}}
	types["[method]fields.append"] = hostFunc{sig(i32, i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		f := get[*httpFields](&s.h, uint32(st[0]), "fields")
		k := name(s, st[1], st[2])
		v := append([]byte(nil), s.read(uint32(st[3]), uint32(st[4]))...)
		e := f.check(k, v)
		if e < 0 {
			f.names, f.values = append(f.names, k), append(f.values, v)
		}
		headerResult(s, uint32(st[5]), e)
	}}
	types["[method]fields.entries"] = hostFunc{sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		f := get[*httpFields](&s.h, uint32(st[0]), "fields")
		ptr := uint32(4)
		if len(f.names) > 0 {
			ptr = s.alloc(ctx, 4, uint32(16*len(f.names)))
		}
		for i, k := range f.names {
			kp, kn := s.putString(ctx, k)
			vp, vn := s.putBytes(ctx, f.values[i])
			e := ptr + 16*uint32(i)
			s.u32(e, kp)
			s.u32(e+4, kn)
			s.u32(e+8, vp)
			s.u32(e+12, vn)
		}
		s.u32(uint32(st[1]), ptr)
		s.u32(uint32(st[1])+4, uint32(len(f.names)))
	}}
	types["[method]fields.clone"] = hostFunc{sig(i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		st[0] = uint64(s.h.add(get[*httpFields](&s.h, uint32(st[0]), "fields").clone()))
	}}
}

// methods are wasi:http's method cases in declaration order.
func methods() [9]string {
	return [9]string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}
}

func addRequest(types iface) {
	// optString reads an option<string> flattened as (tag, ptr, len).
	optString := func(s *state, tag, p, n uint64) *string {
		if uint32(tag) == 0 {
			return nil
		}
		v := s.str(uint32(p), uint32(n))
		return &v
	}
	okIf := func(st []uint64, ok bool) {
		st[0] = 1
		if ok {
			st[0] = 0
		}
	}
	types["[constructor]outgoing-request"] = hostFunc{sig(i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		f := dropAs[*httpFields](&s.h, uint32(st[0]), "fields")
		st[0] = uint64(s.h.add(&httpRequest{method: "GET", headers: f}))
	}}
	types["[method]outgoing-request.set-method"] = hostFunc{sig(i32, i32, i32, i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		r := req(s, st[0])
		switch tag := uint32(st[1]); {
		case tag < 9:
			r.method = methods()[tag]
			okIf(st, true)
		case tag == 9:
			m := s.str(uint32(st[2]), uint32(st[3]))
			ok := validName(m)
			if ok {
				r.method = m
			}
			okIf(st, ok)
		default:
			trapf("method tag %d out of range", tag)
		}
	}}
	types["[method]outgoing-request.set-scheme"] = hostFunc{sig(i32, i32, i32, i32, i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
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
			v := strings.ToLower(s.str(uint32(st[3]), uint32(st[4])))
			if v == "" || strings.ContainsAny(v, ":/ ") {
				okIf(st, false)
				return
			}
			r.scheme = v
		default:
			trapf("scheme tag %d out of range", tag)
		}
		okIf(st, true)
	}}
	types["[method]outgoing-request.set-authority"] = hostFunc{sig(i32, i32, i32, i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		r := req(s, st[0])
		a := optString(s, st[1], st[2], st[3])
		ok := a == nil || !strings.ContainsAny(*a, "/?#@ \\")
		if ok {
			r.authority = a
		}
		okIf(st, ok)
	}}
	types["[method]outgoing-request.set-path-with-query"] = hostFunc{sig(i32, i32, i32, i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
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

func req(s *state, h uint64) *httpRequest {
	return get[*httpRequest](&s.h, uint32(h), "outgoing-request")
}

func addBody(types iface) {
	types["[method]outgoing-request.headers"] = hostFunc{sig(i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		st[0] = uint64(s.h.add(req(s, st[0]).headers))
	}}
	types["[method]outgoing-request.body"] = hostFunc{sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		r := req(s, st[0])
		ret := uint32(st[1])
		if r.bodyTaken {
			s.u8(ret, 1)
			return
		}
		r.bodyTaken = true
		r.body = &httpOutBody{max: s.maxBody()}
		s.u8(ret, 0)
		s.u32(ret+4, s.h.add(r.body))
	}}
	types["[method]outgoing-body.write"] = hostFunc{sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		b := get[*httpOutBody](&s.h, uint32(st[0]), "outgoing-body")
		ret := uint32(st[1])
		if b.streamTaken {
			s.u8(ret, 1)
			return
		}
		b.streamTaken = true
		s.u8(ret, 0)
		s.u32(ret+4, s.h.add(&outStream{w: bodyWriter{b}}))
	}}
	types["[static]outgoing-body.finish"] = hostFunc{sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		b := get[*httpOutBody](&s.h, uint32(st[0]), "outgoing-body")
		s.h.drop(uint32(st[0]))
		if uint32(st[1]) == 1 { // trailers are accepted and not sent
			dropAs[*httpFields](&s.h, uint32(st[2]), "trailers")
		}
		ret := uint32(st[3])
		b.finished = true
		if b.over {
			n := uint64(b.buf.Len())
			e := &httpErr{code: ecRequestBodySize, size: &n}
			s.u8(ret, 1)
			s.lowerErrorCode(ctx, ret+8, e)
			if b.future != nil {
				b.future.fail(e)
			}
			return
		}
		s.u8(ret, 0)
		if b.future != nil {
			b.future.start()
		}
	}}
}

func addOptions(types iface) {
	types["[constructor]request-options"] = hostFunc{nil, sig(i32), func(ctx context.Context, s *state, st []uint64) {
		st[0] = uint64(s.h.add(&httpOptions{}))
	}}
	for i, n := range []string{"connect-timeout", "first-byte-timeout", "between-bytes-timeout"} {
		types["[method]request-options.set-"+n] = hostFunc{sig(i32, i32, i64), sig(i32), func(ctx context.Context, s *state, st []uint64) {
			o := get[*httpOptions](&s.h, uint32(st[0]), "request-options")
			o.timeouts[i] = nil
			if uint32(st[1]) == 1 {
				v := st[2]
				o.timeouts[i] = &v
			}
			st[0] = 0
		}}
		types["[method]request-options."+n] = hostFunc{sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			o := get[*httpOptions](&s.h, uint32(st[0]), "request-options")
			ret := uint32(st[1])
			s.u8(ret, 0)
			if v := o.timeouts[i]; v != nil {
				s.u8(ret, 1)
				s.u64(ret+8, *v)
			}
		}}
	}
}

// dropOutBody drops an outgoing body; a request waiting for it fails, as
// a body dropped unfinished means a truncated request.
func dropOutBody(ctx context.Context, s *state, st []uint64) {
	b := dropAs[*httpOutBody](&s.h, uint32(st[0]), "outgoing-body")
	b.dropped = true
	if b.future != nil && !b.finished {
		msg := "outgoing body dropped without outgoing-body.finish"
		b.future.fail(&httpErr{code: ecInternal, text: msg, msg: &msg})
	}
}

func addResponse(types iface) {
	resp := func(s *state, h uint64) *httpResponse {
		return get[*httpResponse](&s.h, uint32(h), "incoming-response")
	}
	types["[method]incoming-response.status"] = hostFunc{sig(i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		st[0] = uint64(uint16(resp(s, st[0]).resp.StatusCode))
	}}
	types["[method]incoming-response.headers"] = hostFunc{sig(i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		st[0] = uint64(s.h.add(fieldsOf(resp(s, st[0]).resp.Header)))
	}}
	types["[method]incoming-response.consume"] = hostFunc{sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		r := resp(s, st[0])
		ret := uint32(st[1])
		if r.consumed {
			s.u8(ret, 1)
			return
		}
		r.consumed = true
		s.u8(ret, 0)
		s.u32(ret+4, s.h.add(&httpInBody{resp: r.resp, max: s.maxBody()}))
	}}
	types["[method]incoming-body.stream"] = hostFunc{sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		b := get[*httpInBody](&s.h, uint32(st[0]), "incoming-body")
		ret := uint32(st[1])
		if b.streamTaken {
			s.u8(ret, 1)
			return
		}
		b.streamTaken = true
		s.u8(ret, 0)
		s.u32(ret+4, s.h.add(&inStream{r: &cappedBody{r: b.resp.Body, max: b.max}, partial: true}))
	}}
	types["[static]incoming-body.finish"] = hostFunc{sig(i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		dropAs[*httpInBody](&s.h, uint32(st[0]), "incoming-body")
		st[0] = uint64(s.h.add(&httpTrailers{}))
	}}
	types["[method]future-trailers.subscribe"] = hostFunc{sig(i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		get[*httpTrailers](&s.h, uint32(st[0]), "future-trailers")
		st[0] = uint64(s.h.add(&pollable{}))
	}}
	// get: some(ok(ok(none))), option/result tags at 0, 8, 16, the
	// option<trailers> at 24.
	types["[method]future-trailers.get"] = hostFunc{sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		get[*httpTrailers](&s.h, uint32(st[0]), "future-trailers")
		ret := uint32(st[1])
		s.u8(ret, 1)
		s.u8(ret+8, 0)
		s.u8(ret+16, 0)
		s.u8(ret+24, 0)
	}}
	types["[method]future-incoming-response.subscribe"] = hostFunc{sig(i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
		f := get[*httpFuture](&s.h, uint32(st[0]), "future-incoming-response")
		st[0] = uint64(s.h.add(&pollable{done: f.done}))
	}}
	types["[method]future-incoming-response.get"] = hostFunc{sig(i32, i32), nil, futureGet}
	types["http-error-code"] = hostFunc{sig(i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
		e := get[*ioErr](&s.h, uint32(st[0]), "error")
		ret := uint32(st[1])
		s.u8(ret, 0)
		if e.http != nil {
			s.u8(ret, 1)
			s.lowerErrorCode(ctx, ret+8, e.http)
		}
	}}
}

// isHTTP reports whether an unversioned interface name is wasi:http's.
func isHTTP(name string) bool { return strings.HasPrefix(name, "wasi:http/") }

// httpUnimplemented is a host function with the import's own signature
// for a wasi:http function this host does not provide (the incoming
// side, request getters): linking succeeds, calling it stops the guest.
func httpUnimplemented(iface, fn string, params, results []api.ValueType) hostFunc {
	return hostFunc{params, results, func(ctx context.Context, s *state, st []uint64) {
		trapf("%s.%s is not implemented by murmur-eval's wasi:http host (outgoing requests only)", iface, fn)
	}}
}
