package wasmcheck

import "fmt"

// refusal is Check's error. overLimit tells a count within its bytes but
// past a limit (wasmparser's) from a count or length that cannot fit, or a
// malformed binary; the fuzz target holds the two apart.
type refusal struct {
	msg       string
	overLimit bool
}

func (e *refusal) Error() string { return e.msg }

// reader reads the binary format's primitives from one section or item.
// Every read is bounds-checked; the first failure sticks in err and later
// reads return zero values, so walkers check err once per item.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = &refusal{msg: fmt.Sprintf(format, args...)}
	}
}

func (r *reader) failLimit(format string, args ...any) {
	if r.err == nil {
		r.err = &refusal{msg: fmt.Sprintf(format, args...), overLimit: true}
	}
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail("unexpected end at byte %d of %d", r.off, len(r.b))
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

// u32 reads an unsigned LEB128 of at most 5 bytes, refusing what wazero's
// decoder refuses as an overflow.
func (r *reader) u32() uint32 {
	var v uint32
	for i := 0; i < 5; i++ {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if i == 4 && c > 0x0f {
			r.fail("integer overflows 32 bits")
			return 0
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v
		}
	}
	return v // not reached: the fifth byte has no continuation bit
}

// skipLEB skips a LEB128 (signed or not) of at most max bytes.
func (r *reader) skipLEB(max int) {
	for i := 0; i < max; i++ {
		if r.byte()&0x80 == 0 || r.err != nil {
			return
		}
	}
	r.fail("integer longer than %d bytes", max)
}

// skip skips n bytes that must all be left.
func (r *reader) skip(n uint32, what string) {
	if r.err == nil && uint64(n) > uint64(r.left()) {
		r.fail("%s declares %d bytes but only %d are left", what, n, r.left())
		return
	}
	if r.err == nil {
		r.off += int(n)
	}
}

// sub returns a reader over the next n bytes and skips them.
func (r *reader) sub(n uint32, what string) reader {
	start := r.off
	r.skip(n, what)
	if r.err != nil {
		return reader{err: r.err}
	}
	return reader{b: r.b[start:r.off]}
}

// vec reads a vector's count and refuses it unless count items of at least
// min bytes each fit in the bytes left, and, when limit is not 0, unless
// count is at most limit. what names the vector and unit its items:
// "data section" and "segments" make "data section declares 4294967295
// segments in 5 bytes", the bytes being the whole section or item.
func (r *reader) vec(what, unit string, min int, limit uint32) uint32 {
	n := r.u32()
	if r.err != nil {
		return 0
	}
	if uint64(n)*uint64(min) > uint64(r.left()) {
		r.fail("%s declares %d %s in %d bytes", what, n, unit, len(r.b))
		return 0
	}
	if limit != 0 && n > limit {
		r.failLimit("%s declares %d %s; at most %d are allowed", what, n, unit, limit)
		return 0
	}
	return n
}

// name skips a length-prefixed name whose length must fit.
func (r *reader) name(what string) {
	r.skip(r.u32(), what)
}

// count reads a vector's length and refuses one whose items, of at least
// min bytes each, could not fit in the bytes left.
func (r *reader) count(min int) uint32 {
	n := r.u32()
	if r.err == nil && uint64(n)*uint64(min) > uint64(r.left()) {
		r.fail("count %d exceeds the %d bytes left", n, r.left())
		return 0
	}
	return n
}

// s33 reads a signed LEB128 of at most 5 bytes (a block type's index;
// negative values are value types).
func (r *reader) s33() int64 {
	var v int64
	var shift uint
	for {
		if shift >= 35 {
			r.fail("integer longer than 5 bytes")
			return 0
		}
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}
