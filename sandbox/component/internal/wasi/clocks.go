package wasi

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"time"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

// addClocks adds wasi:clocks and wasi:random.
func addClocks(all map[string]iface) {
	now := func(s *Host) time.Time {
		if s.env.Now != nil {
			return s.env.Now()
		}
		return time.Now()
	}
	datetime := func(ret uint32, s *Host, t time.Time) {
		s.U64(ret, uint64(t.Unix()))
		s.U32(ret+8, uint32(t.Nanosecond()))
	}
	all["wasi:clocks/wall-clock"] = iface{
		"now": {abi.Sig(i32), nil, func(ctx context.Context, s *Host, st []uint64) { datetime(uint32(st[0]), s, now(s)) }},
		"resolution": {abi.Sig(i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			s.U64(uint32(st[0]), 0)
			s.U32(uint32(st[0])+8, 1)
		}},
	}
	all["wasi:clocks/monotonic-clock"] = iface{
		"now":        {nil, abi.Sig(i64), func(ctx context.Context, s *Host, st []uint64) { st[0] = uint64(time.Since(s.start)) }},
		"resolution": {nil, abi.Sig(i64), func(ctx context.Context, s *Host, st []uint64) { st[0] = 1 }},
		"subscribe-instant": {abi.Sig(i64), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
			st[0] = uint64(s.H.Add(&pollable{deadline: s.start.Add(time.Duration(min(st[0], 1<<62)))}))
		}},
		"subscribe-duration": {abi.Sig(i64), abi.Sig(i32), func(ctx context.Context, s *Host, st []uint64) {
			st[0] = uint64(s.H.Add(&pollable{deadline: time.Now().Add(time.Duration(min(st[0], 1<<62)))}))
		}},
	}
	bytesFn := func(ctx context.Context, s *Host, st []uint64) {
		b := make([]byte, min(st[0], maxRead))
		_, _ = rand.Read(b)
		p, n := s.PutBytes(ctx, b)
		s.U32(uint32(st[1]), p)
		s.U32(uint32(st[1])+4, n)
	}
	u64Fn := func(ctx context.Context, s *Host, st []uint64) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		st[0] = binary.LittleEndian.Uint64(b[:])
	}
	all["wasi:random/random"] = iface{
		"get-random-bytes": {abi.Sig(i64, i32), nil, bytesFn},
		"get-random-u64":   {nil, abi.Sig(i64), u64Fn},
	}
	all["wasi:random/insecure"] = iface{
		"get-insecure-random-bytes": {abi.Sig(i64, i32), nil, bytesFn},
		"get-insecure-random-u64":   {nil, abi.Sig(i64), u64Fn},
	}
	all["wasi:random/insecure-seed"] = iface{
		"insecure-seed": {abi.Sig(i32), nil, func(ctx context.Context, s *Host, st []uint64) {
			var b [16]byte
			_, _ = rand.Read(b[:])
			s.Write(uint32(st[0]), b[:])
		}},
	}
}
