package wasmcheck

import "bytes"

// Builders for test modules, byte by byte.

const huge = 1<<32 - 1

func leb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// sec is a section: its id, its size, then its contents.
func sec(id byte, contents ...[]byte) []byte {
	body := cat(contents...)
	return cat([]byte{id}, leb(uint64(len(body))), body)
}

// mod is a core module of the given sections.
func mod(sections ...[]byte) []byte {
	return cat([]byte("\x00asm\x01\x00\x00\x00"), cat(sections...))
}

// custom is a custom section with the given name.
func custom(name string, contents ...[]byte) []byte {
	return sec(0, leb(uint64(len(name))), []byte(name), cat(contents...))
}

// str is a name: its length, then its bytes.
func str(s string) []byte { return cat(leb(uint64(len(s))), []byte(s)) }

// vecOf is a vector of n copies of item.
func vecOf(n int, item []byte) []byte { return cat(leb(uint64(n)), bytes.Repeat(item, n)) }

// oneFunc is a module of one function () -> () whose body is body
// (local declarations and code, without the size), exported as "f".
func oneFunc(body []byte, more ...[]byte) []byte {
	return mod(cat(
		sec(1, []byte{1, 0x60, 0, 0}),
		sec(3, []byte{1, 0}),
		sec(7, []byte{1}, str("f"), []byte{0, 0}),
		sec(10, []byte{1}, leb(uint64(len(body))), body),
	), cat(more...))
}

// locals are local declarations of the given counts, each of i32.
func locals(counts ...uint64) []byte {
	b := leb(uint64(len(counts)))
	for _, n := range counts {
		b = cat(b, leb(n), []byte{0x7f})
	}
	return b
}
