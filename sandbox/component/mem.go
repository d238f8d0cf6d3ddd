package component

import (
	"context"
	"encoding/binary"
	"unicode/utf8"
)

// Guest memory access for host functions and the lift/lower of results.
// Every access is bounds-checked; a bad pointer is a trap, never a host
// panic of another kind.

func (s *state) read(ptr, n uint32) []byte {
	b, ok := s.mem.Read(ptr, n)
	if !ok {
		trapf("pointer %#x+%d out of bounds of linear memory (%d bytes)", ptr, n, s.mem.Size())
	}
	return b
}

func (s *state) str(ptr, n uint32) string {
	b := s.read(ptr, n)
	if !utf8.Valid(b) {
		trapf("string at %#x is not valid UTF-8", ptr)
	}
	return string(b)
}

func (s *state) write(ptr uint32, b []byte) {
	if !s.mem.Write(ptr, b) {
		trapf("pointer %#x+%d out of bounds of linear memory (%d bytes)", ptr, len(b), s.mem.Size())
	}
}

func (s *state) u8(ptr uint32, v byte) {
	if !s.mem.WriteByte(ptr, v) {
		trapf("pointer %#x out of bounds of linear memory", ptr)
	}
}

func (s *state) u32(ptr, v uint32) {
	if !s.mem.WriteUint32Le(ptr, v) {
		trapf("pointer %#x out of bounds of linear memory", ptr)
	}
}

func (s *state) u64(ptr uint32, v uint64) {
	if !s.mem.WriteUint64Le(ptr, v) {
		trapf("pointer %#x out of bounds of linear memory", ptr)
	}
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// alloc asks the guest's cabi_realloc for size bytes and checks what it
// returns: a misbehaving allocator (misaligned or out-of-bounds pointer) is
// a trap.
func (s *state) alloc(ctx context.Context, align, size uint32) uint32 {
	if s.realloc == nil {
		trapf("component has no cabi_realloc")
	}
	res, err := s.realloc.Call(ctx, 0, 0, uint64(align), uint64(size))
	if err != nil {
		// A trap, whether in a host function (wazero makes it the call's
		// error) or in host-side lowering before a call (guard makes it
		// the call's error): never a panic of the host.
		trapf("cabi_realloc failed: %v", err)
	}
	p := uint32(res[0])
	if p%align != 0 {
		trapf("cabi_realloc returned misaligned pointer %#x (alignment %d)", p, align)
	}
	if uint64(p)+uint64(size) > uint64(s.mem.Size()) {
		trapf("cabi_realloc returned pointer %#x+%d out of bounds of linear memory (%d bytes)", p, size, s.mem.Size())
	}
	return p
}

// putString copies v into guest memory and returns its pointer and length.
func (s *state) putString(ctx context.Context, v string) (uint32, uint32) {
	if v == "" {
		return 1, 0
	}
	p := s.alloc(ctx, 1, uint32(len(v)))
	s.write(p, []byte(v))
	return p, uint32(len(v))
}

// putBytes is putString for list<u8>.
func (s *state) putBytes(ctx context.Context, v []byte) (uint32, uint32) {
	if len(v) == 0 {
		return 1, 0
	}
	p := s.alloc(ctx, 1, uint32(len(v)))
	s.write(p, v)
	return p, uint32(len(v))
}
