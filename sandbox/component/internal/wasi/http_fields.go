package wasi

import (
	"bytes"
	"context"
	"net/http"
	"sort"
	"strings"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// wasi:http's fields resource (headers and trailers): validation as
// wasmtime does it, and its host functions.

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

func addFields(types iface) {
	name := fieldName
	types["[constructor]fields"] = hostFunc{nil, abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		st[0] = uint64(s.H.Add(&httpFields{}))
	}}
	types["[static]fields.from-list"] = hostFunc{abi.Sig(i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		list := append([]byte(nil), s.Read(uint32(st[0]), 16*uint32(min(st[1], 1<<24)))...)
		ret := uint32(st[2])
		f := &httpFields{}
		for i := 0; i+16 <= len(list); i += 16 {
			k := strings.ToLower(s.Str(abi.LE32(list[i:]), abi.LE32(list[i+4:])))
			v := append([]byte(nil), s.Read(abi.LE32(list[i+8:]), abi.LE32(list[i+12:]))...)
			if e := f.check(k, v); e >= 0 {
				s.U8(ret, 1)
				s.U8(ret+4, byte(e))
				return
			}
			f.names, f.values = append(f.names, k), append(f.values, v)
		}
		s.U8(ret, 0)
		s.U32(ret+4, s.H.Add(f))
	}}
	types["[method]fields.get"] = hostFunc{abi.Sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		f := abi.Get[*httpFields](&s.H, uint32(st[0]), "fields")
		k := name(s, st[1], st[2])
		var vals [][]byte
		for i, n := range f.names {
			if n == k {
				vals = append(vals, f.values[i])
			}
		}
		ptr := uint32(4)
		if len(vals) > 0 {
			ptr = s.Alloc(ctx, 4, uint32(8*len(vals)))
		}
		for i, v := range vals {
			p, n := s.PutBytes(ctx, v)
			s.U32(ptr+8*uint32(i), p)
			s.U32(ptr+8*uint32(i)+4, n)
		}
		s.U32(uint32(st[3]), ptr)
		s.U32(uint32(st[3])+4, uint32(len(vals)))
	}}
	types["[method]fields.has"] = hostFunc{abi.Sig(i32, i32, i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		f := abi.Get[*httpFields](&s.H, uint32(st[0]), "fields")
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
func fieldName(s *Host, p, n uint64) string { return strings.ToLower(s.Str(uint32(p), uint32(n))) }

// headerResult stores result<_, header-error>: the tag at 0, the error's
// case at 1 (e < 0: ok).
func headerResult(s *Host, ret uint32, e int) {
	if e < 0 {
		s.U8(ret, 0)
		return
	}
	s.U8(ret, 1)
	s.U8(ret+1, byte(e))
}

func addFieldsEdit(types iface) {
	name := fieldName
	types["[method]fields.set"] = hostFunc{abi.Sig(i32, i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		f := abi.Get[*httpFields](&s.H, uint32(st[0]), "fields")
		k := name(s, st[1], st[2])
		list := append([]byte(nil), s.Read(uint32(st[3]), 8*uint32(min(st[4], 1<<24)))...)
		var vals [][]byte
		for i := 0; i+8 <= len(list); i += 8 {
			vals = append(vals, append([]byte(nil), s.Read(abi.LE32(list[i:]), abi.LE32(list[i+4:]))...))
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
	types["[method]fields.delete"] = hostFunc{abi.Sig(i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		f := abi.Get[*httpFields](&s.H, uint32(st[0]), "fields")
		k := name(s, st[1], st[2])
		e := f.check(k)
		if e < 0 {
			f.del(k)
		}
		headerResult(s, uint32(st[3]), e)
	}}
	types["[method]fields.append"] = hostFunc{abi.Sig(i32, i32, i32, i32, i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		f := abi.Get[*httpFields](&s.H, uint32(st[0]), "fields")
		k := name(s, st[1], st[2])
		v := append([]byte(nil), s.Read(uint32(st[3]), uint32(st[4]))...)
		e := f.check(k, v)
		if e < 0 {
			f.names, f.values = append(f.names, k), append(f.values, v)
		}
		headerResult(s, uint32(st[5]), e)
	}}
	types["[method]fields.entries"] = hostFunc{abi.Sig(i32, i32), nil, func(ctx context.Context, s *Host, st []uint64) {
		f := abi.Get[*httpFields](&s.H, uint32(st[0]), "fields")
		ptr := uint32(4)
		if len(f.names) > 0 {
			ptr = s.Alloc(ctx, 4, uint32(16*len(f.names)))
		}
		for i, k := range f.names {
			kp, kn := s.PutString(ctx, k)
			vp, vn := s.PutBytes(ctx, f.values[i])
			e := ptr + 16*uint32(i)
			s.U32(e, kp)
			s.U32(e+4, kn)
			s.U32(e+8, vp)
			s.U32(e+12, vn)
		}
		s.U32(uint32(st[1]), ptr)
		s.U32(uint32(st[1])+4, uint32(len(f.names)))
	}}
	types["[method]fields.clone"] = hostFunc{abi.Sig(i32), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
		st[0] = uint64(s.H.Add(abi.Get[*httpFields](&s.H, uint32(st[0]), "fields").clone()))
	}}
}
