package wasi

import (
	"context"
	"fmt"
	"io"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// The response side of wasi:http: an incoming-response, its body as a
// stream capped at Env.MaxHTTPBodyBytes, and its (always empty) trailers.

// cappedBody is a response body that fails past max bytes.
type cappedBody struct {
	r    io.Reader
	n    int64
	max  int64
	over bool
	// length is the body's Content-Length, -1 when not known.
	length int64
}

// left is how many bytes the body has not yet given, when its length is
// known (reads then need no buffer larger than that: atMost).
func (c *cappedBody) left() (int64, bool) {
	if c.length < 0 {
		return 0, false
	}
	return max(c.length-c.n, 0), true
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

func addResponse(types iface) {
	resp := func(s *Host, h uint64) *httpResponse {
		return abi.Get[*httpResponse](&s.H, uint32(h), "incoming-response")
	}
	types["[method]incoming-response.status"] = hostFunc{abi.Sig(i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		st[0] = uint64(uint16(resp(s, st[0]).resp.StatusCode))
	}}
	types["[method]incoming-response.headers"] = hostFunc{abi.Sig(i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		st[0] = uint64(s.H.Add(fieldsOf(resp(s, st[0]).resp.Header)))
	}}
	types["[method]incoming-response.consume"] = hostFunc{abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		r := resp(s, st[0])
		ret := uint32(st[1])
		s.takeOnce(ret, &r.consumed, func() any { return &httpInBody{resp: r.resp, max: s.maxBody()} })
	}}
	types["[method]incoming-body.stream"] = hostFunc{abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		b := abi.Get[*httpInBody](&s.H, uint32(st[0]), "incoming-body")
		ret := uint32(st[1])
		s.takeOnce(ret, &b.streamTaken, func() any {
			return &inStream{r: &cappedBody{r: b.resp.Body, max: b.max, length: b.resp.ContentLength}, partial: true}
		})
	}}
	types["[static]incoming-body.finish"] = hostFunc{abi.Sig(i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		abi.DropAs[*httpInBody](&s.H, uint32(st[0]), "incoming-body")
		st[0] = uint64(s.H.Add(&httpTrailers{}))
	}}
	types["[method]future-trailers.subscribe"] = hostFunc{abi.Sig(i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		abi.Get[*httpTrailers](&s.H, uint32(st[0]), "future-trailers")
		st[0] = uint64(s.H.Add(&pollable{}))
	}}
	// get: some(ok(ok(none))), option/result tags at 0, 8, 16, the
	// option<trailers> at 24.
	types["[method]future-trailers.get"] = hostFunc{abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		abi.Get[*httpTrailers](&s.H, uint32(st[0]), "future-trailers")
		ret := uint32(st[1])
		s.U8(ret, 1)
		s.U8(ret+8, 0)
		s.U8(ret+16, 0)
		s.U8(ret+24, 0)
	}}
	types["[method]future-incoming-response.subscribe"] = hostFunc{abi.Sig(i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		f := abi.Get[*httpFuture](&s.H, uint32(st[0]), "future-incoming-response")
		st[0] = uint64(s.H.Add(&pollable{done: f.done}))
	}}
	types["[method]future-incoming-response.get"] = hostFunc{abi.Sig(i32, i32), nil, futureGet}
	types["http-error-code"] = hostFunc{abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		e := abi.Get[*ioErr](&s.H, uint32(st[0]), "error")
		ret := uint32(st[1])
		s.U8(ret, 0)
		if e.http != nil {
			s.U8(ret, 1)
			s.lowerErrorCode(ctx, ret+8, e.http)
		}
	}}
}
