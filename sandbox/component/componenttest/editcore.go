package componenttest

import "testing"

// EditCore returns a copy of component bin with its core module k (top
// level, in binary order; 0 is the main module in a wit-component build)
// replaced by what edit makes of it: the tests' way to put hostile bytes
// into a real component. bin must be well formed (a committed fixture).
func EditCore(t testing.TB, bin []byte, k int, edit func(mod []byte) []byte) []byte {
	t.Helper()
	for off := 8; off < len(bin); {
		id := bin[off]
		n, next := ULEB(bin, off+1)
		if id != 1 || k > 0 {
			if id == 1 {
				k--
			}
			off = next + n
			continue
		}
		mod := edit(append([]byte{}, bin[next:next+n]...))
		out := append(append([]byte{}, bin[:off]...), 1)
		out = AppendULEB(out, len(mod))
		out = append(out, mod...)
		return append(out, bin[next+n:]...)
	}
	t.Fatal("componenttest: the component has too few core modules")
	return nil
}

// ULEB decodes the unsigned LEB128 at b[off:], returning it and the offset
// after it.
func ULEB(b []byte, off int) (v, next int) {
	for shift := 0; ; shift += 7 {
		c := b[off]
		off++
		v |= int(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, off
		}
	}
}

// AppendULEB appends v as an unsigned LEB128.
func AppendULEB(b []byte, v int) []byte {
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
