package abi

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// MemReader is the part of api.Memory a result's lift needs (a fake in
// fuzz tests).
type MemReader interface {
	Read(offset, n uint32) ([]byte, bool)
	Size() uint32
}

// LiftError is a result the guest laid out wrongly: the guest's error, not
// a host failure. What names the result ("tool-result" when empty).
type LiftError struct{ Text, What string }

func (e *LiftError) Error() string {
	what := e.What
	if what == "" {
		what = "tool-result"
	}
	return "invalid " + what + ": " + e.Text
}

// LiftFail is a LiftError with the formatted text.
func LiftFail(format string, args ...any) error {
	return &LiftError{Text: fmt.Sprintf(format, args...)}
}

// LiftOption lifts the option<string> laid out in b (tag at 0, string at 4).
func LiftOption(mem MemReader, b []byte) (*string, error) {
	switch b[0] {
	case 0:
		return nil, nil
	case 1:
		v, err := LiftString(mem, b[4:])
		return &v, err
	default:
		return nil, LiftFail("option tag %d is not 0 or 1", b[0])
	}
}

// LiftString lifts the string whose pointer and length are laid out in b.
func LiftString(mem MemReader, b []byte) (string, error) {
	p, n := LE32(b), LE32(b[4:])
	s, ok := mem.Read(p, n)
	if !ok {
		return "", LiftFail("string %#x+%d out of bounds", p, n)
	}
	if !utf8.Valid(s) {
		return "", LiftFail("string at %#x is not valid UTF-8", p)
	}
	return string(s), nil
}

// LiftPairs lifts a list of records of two strings (16 bytes each) whose
// pointer and length are at b.
func LiftPairs(mem MemReader, b []byte) ([][2]string, error) {
	lp, ln := LE32(b), LE32(b[4:])
	if lp%4 != 0 {
		return nil, LiftFail("list pointer %#x is not 4-byte aligned", lp)
	}
	if uint64(ln)*16 > uint64(mem.Size()) {
		return nil, LiftFail("list of %d records exceeds linear memory", ln)
	}
	list, ok := mem.Read(lp, ln*16)
	if !ok {
		return nil, LiftFail("list %#x+%d out of bounds", lp, ln)
	}
	list = append([]byte(nil), list...)
	out := make([][2]string, 0, ln)
	for i := uint32(0); i < ln; i++ {
		a, err := LiftString(mem, list[16*i:])
		if err != nil {
			return nil, err
		}
		c, err := LiftString(mem, list[16*i+8:])
		if err != nil {
			return nil, err
		}
		out = append(out, [2]string{a, c})
	}
	return out, nil
}

// LE32 is the little-endian uint32 at the start of b.
func LE32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
