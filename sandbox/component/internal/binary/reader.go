package binary

import (
	"unicode/utf8"
)

// reader reads the binary format's primitives from a byte slice. Every read
// is bounds-checked; the first failure sticks in err and later reads return
// zero values, so decoders check err once per item.
type reader struct {
	b    []byte
	off  int
	base int // offset of b in the whole binary, for messages
	err  error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = Malformed(r.base+r.off, format, args...)
	}
}

func (r *reader) eof() bool { return r.err != nil || r.off >= len(r.b) }

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail("unexpected end of data")
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *reader) bytes(n uint32) []byte {
	if r.err != nil {
		return nil
	}
	if uint64(n) > uint64(len(r.b)-r.off) {
		r.fail("length %d runs past the end of its section", n)
		return nil
	}
	s := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return s
}

// u32 reads an unsigned LEB128 of at most 5 bytes.
func (r *reader) u32() uint32 {
	var v uint64
	for shift := 0; ; shift += 7 {
		if shift >= 35 {
			r.fail("LEB128 integer too long")
			return 0
		}
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	if v > 0xffffffff {
		r.fail("LEB128 integer overflows 32 bits")
		return 0
	}
	return uint32(v)
}

// s33 reads a signed LEB128 of at most 5 bytes (type indices and primitive
// value types share this encoding: negative values are primitives).
func (r *reader) s33() int64 {
	var v int64
	var shift uint
	var c byte
	for {
		if shift >= 35 {
			r.fail("LEB128 integer too long")
			return 0
		}
		c = r.byte()
		if r.err != nil {
			return 0
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			break
		}
	}
	if c&0x40 != 0 {
		v |= -1 << shift
	}
	return v
}

func (r *reader) name() string {
	n := r.u32()
	b := r.bytes(n)
	if r.err != nil {
		return ""
	}
	if !utf8.Valid(b) {
		r.fail("name is not valid UTF-8")
		return ""
	}
	return string(b)
}

// count reads a vector length and refuses one that could not fit in the
// remaining bytes (every element takes at least min bytes), so a huge count
// never makes the decoder allocate or loop for long.
func (r *reader) count(min int) uint32 {
	n := r.u32()
	if r.err == nil && uint64(n)*uint64(min) > uint64(len(r.b)-r.off) {
		r.fail("count %d exceeds the bytes left", n)
		return 0
	}
	return n
}
