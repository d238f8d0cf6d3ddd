package component

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"time"
)

// addClocks adds wasi:clocks and wasi:random.
func addClocks(all map[string]iface) {
	now := func(s *state) time.Time {
		if s.env.Now != nil {
			return s.env.Now()
		}
		return time.Now()
	}
	datetime := func(ret uint32, s *state, t time.Time) {
		s.u64(ret, uint64(t.Unix()))
		s.u32(ret+8, uint32(t.Nanosecond()))
	}
	all["wasi:clocks/wall-clock"] = iface{
		"now": {sig(i32), nil, func(ctx context.Context, s *state, st []uint64) { datetime(uint32(st[0]), s, now(s)) }},
		"resolution": {sig(i32), nil, func(ctx context.Context, s *state, st []uint64) {
			s.u64(uint32(st[0]), 0)
			s.u32(uint32(st[0])+8, 1)
		}},
	}
	all["wasi:clocks/monotonic-clock"] = iface{
		"now":        {nil, sig(i64), func(ctx context.Context, s *state, st []uint64) { st[0] = uint64(time.Since(s.start)) }},
		"resolution": {nil, sig(i64), func(ctx context.Context, s *state, st []uint64) { st[0] = 1 }},
		"subscribe-instant": {sig(i64), sig(i32), func(ctx context.Context, s *state, st []uint64) {
			st[0] = uint64(s.h.add(&pollable{deadline: s.start.Add(time.Duration(min(st[0], 1<<62)))}))
		}},
		"subscribe-duration": {sig(i64), sig(i32), func(ctx context.Context, s *state, st []uint64) {
			st[0] = uint64(s.h.add(&pollable{deadline: time.Now().Add(time.Duration(min(st[0], 1<<62)))}))
		}},
	}
	bytesFn := func(ctx context.Context, s *state, st []uint64) {
		b := make([]byte, min(st[0], maxRead))
		_, _ = rand.Read(b)
		p, n := s.putBytes(ctx, b)
		s.u32(uint32(st[1]), p)
		s.u32(uint32(st[1])+4, n)
	}
	u64Fn := func(ctx context.Context, s *state, st []uint64) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		st[0] = binary.LittleEndian.Uint64(b[:])
	}
	all["wasi:random/random"] = iface{
		"get-random-bytes": {sig(i64, i32), nil, bytesFn},
		"get-random-u64":   {nil, sig(i64), u64Fn},
	}
	all["wasi:random/insecure"] = iface{
		"get-insecure-random-bytes": {sig(i64, i32), nil, bytesFn},
		"get-insecure-random-u64":   {nil, sig(i64), u64Fn},
	}
	all["wasi:random/insecure-seed"] = iface{
		"insecure-seed": {sig(i32), nil, func(ctx context.Context, s *state, st []uint64) {
			var b [16]byte
			_, _ = rand.Read(b[:])
			s.write(uint32(st[0]), b[:])
		}},
	}
}
