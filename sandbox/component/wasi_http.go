package component

import (
	"context"
	"strings"

	"github.com/tetratelabs/wazero/api"
)

// httpRes is any wasi:http resource this host hands out (fields, requests,
// bodies). None of them ever reaches the network.
type httpRes struct{ kind string }

// errHTTPRequestDenied is wasi:http's error-code case HTTP-request-denied.
const errHTTPRequestDenied = 15

// addHTTP adds enough of wasi:http for a guest to build an outgoing request
// and send it: outgoing-handler.handle then fails with HTTP-request-denied,
// as a policy that allows no host would. The drivers issue replaces this
// with a policy-filtered client. Functions not listed here are made per
// import by httpDenied.
func addHTTP(all map[string]iface) {
	newRes := func(kind string) func(context.Context, *state, []uint64) {
		return func(ctx context.Context, s *state, st []uint64) { st[0] = uint64(s.h.add(&httpRes{kind: kind})) }
	}
	ok := func(ctx context.Context, s *state, st []uint64) { st[0] = 0 } // result<_, _> ok
	okRet := func(i int) func(context.Context, *state, []uint64) {
		return func(ctx context.Context, s *state, st []uint64) {
			get[*httpRes](&s.h, uint32(st[0]), "wasi:http resource")
			s.u8(uint32(st[i]), 0)
		}
	}
	okHandle := func(kind string, mk func(*state) uint32) func(context.Context, *state, []uint64) {
		return func(ctx context.Context, s *state, st []uint64) {
			get[*httpRes](&s.h, uint32(st[0]), "wasi:http resource")
			ret := uint32(st[1])
			s.u8(ret, 0)
			s.u32(ret+4, mk(s))
		}
	}
	types := iface{
		"[constructor]fields":   {nil, sig(i32), newRes("fields")},
		"[method]fields.append": {sig(i32, i32, i32, i32, i32, i32), nil, okRet(5)},
		"[method]fields.set":    {sig(i32, i32, i32, i32, i32, i32), nil, okRet(5)},
		"[constructor]outgoing-request": {sig(i32), sig(i32), func(ctx context.Context, s *state, st []uint64) {
			dropAs[*httpRes](&s.h, uint32(st[0]), "fields")
			st[0] = uint64(s.h.add(&httpRes{kind: "outgoing-request"}))
		}},
		"[method]outgoing-request.set-method":          {sig(i32, i32, i32, i32), sig(i32), ok},
		"[method]outgoing-request.set-scheme":          {sig(i32, i32, i32, i32, i32), sig(i32), ok},
		"[method]outgoing-request.set-authority":       {sig(i32, i32, i32, i32), sig(i32), ok},
		"[method]outgoing-request.set-path-with-query": {sig(i32, i32, i32, i32), sig(i32), ok},
		"[method]outgoing-request.body": {sig(i32, i32), nil, okHandle("outgoing-body", func(s *state) uint32 {
			return s.h.add(&httpRes{kind: "outgoing-body"})
		})},
		"[method]outgoing-body.write": {sig(i32, i32), nil, okHandle("output-stream", func(s *state) uint32 {
			return s.h.add(&outStream{w: discard{}})
		})},
		"[static]outgoing-body.finish": {sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			dropAs[*httpRes](&s.h, uint32(st[0]), "outgoing-body")
			if uint32(st[1]) == 1 { // an option's tag, an i32
				dropAs[*httpRes](&s.h, uint32(st[2]), "trailers")
			}
			s.u8(uint32(st[3]), 0)
		}},
		"[constructor]request-options": {nil, sig(i32), newRes("request-options")},
	}
	for _, r := range []string{"fields", "outgoing-request", "outgoing-body", "request-options", "incoming-response",
		"incoming-body", "future-trailers", "future-incoming-response", "incoming-request", "outgoing-response", "response-outparam"} {
		types["[resource-drop]"+r] = hostFunc{sig(i32), nil, dropFn[*httpRes](r)}
	}
	all["wasi:http/types"] = types
	all["wasi:http/outgoing-handler"] = iface{
		"handle": {sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *state, st []uint64) {
			dropAs[*httpRes](&s.h, uint32(st[0]), "outgoing-request")
			if uint32(st[1]) == 1 { // an option's tag, an i32
				dropAs[*httpRes](&s.h, uint32(st[2]), "request-options")
			}
			ret := uint32(st[3])
			s.u8(ret, 1)
			s.u8(ret+8, errHTTPRequestDenied)
		}},
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// isHTTP reports whether an unversioned interface name is wasi:http's.
func isHTTP(name string) bool { return strings.HasPrefix(name, "wasi:http/") }

// httpDenied is a host function with the import's own signature for a
// wasi:http function a denied request never reaches (responses, incoming
// bodies): it stops the guest.
func httpDenied(iface, fn string, params, results []api.ValueType) hostFunc {
	return hostFunc{params, results, func(ctx context.Context, s *state, st []uint64) {
		trapf("%s.%s: no HTTP response exists: outgoing requests are denied in murmur-eval", iface, fn)
	}}
}
