package drivertest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// arenaMagic opens the driver fixture's arena (testdata/openai-driver's
// arena.go: two little-endian uint64 words).
const arenaMagic = "!murmur-al-arena"

// arenaBytes is the arena's size (arenaWords * 8).
const arenaBytes = 4 << 20

// addRealloc appends to the Go core module core a cabi_realloc written in
// wasm that bump-allocates from the arena (see arena.go in the fixture),
// and exports it: Go's own exports cannot run before the Go runtime is up,
// and the preview-1 adapter calls cabi_realloc while it starts.
func addRealloc(core []byte) ([]byte, error) {
	secs, err := sections(core)
	if err != nil {
		return nil, err
	}
	base, err := findArena(secs)
	if err != nil {
		return nil, err
	}
	imported := countFuncImports(secs[2])
	typeIdx, typeSec := reallocType(secs[1])
	nFuncs := vecLen(secs[3])
	fn := imported + nFuncs
	secs[1] = typeSec
	secs[3] = appendVec(secs[3], uleb(nil, typeIdx))
	secs[10] = appendVec(secs[10], reallocBody(base))
	exp := uleb(name(nil, "cabi_realloc"), 0)
	secs[7] = appendVec(secs[7], uleb(exp, fn))
	out := append([]byte(nil), core[:8]...)
	for _, s := range ordered(core) {
		body := secs[s.id]
		if s.id == 0 {
			body = core[s.start:s.end]
		}
		out = append(out, s.id)
		out = uleb(out, uint32(len(body)))
		out = append(out, body...)
	}
	return out, nil
}

type span struct {
	id         byte
	start, end int
}

// ordered lists core's sections in order.
func ordered(core []byte) []span {
	var out []span
	for off := 8; off < len(core); {
		id := core[off]
		n, k := readUleb(core[off+1:])
		start := off + 1 + k
		out = append(out, span{id, start, start + int(n)})
		off = start + int(n)
	}
	return out
}

// sections maps each known (non-custom) section id to its body.
func sections(core []byte) (map[byte][]byte, error) {
	if len(core) < 8 || string(core[:4]) != "\x00asm" {
		return nil, errors.New("not a core module")
	}
	secs := map[byte][]byte{}
	for _, s := range ordered(core) {
		if s.end > len(core) {
			return nil, errors.New("truncated section")
		}
		if s.id != 0 {
			secs[s.id] = append([]byte(nil), core[s.start:s.end]...)
		}
	}
	for _, id := range []byte{1, 2, 3, 7, 10, 11} {
		if secs[id] == nil {
			return nil, fmt.Errorf("section %d missing", id)
		}
	}
	return secs, nil
}

// findArena is the address of the arena's magic in the data segments.
func findArena(secs map[byte][]byte) (uint32, error) {
	d := secs[11]
	n, k := readUleb(d)
	d = d[k:]
	for range n {
		flags, k := readUleb(d)
		d = d[k:]
		if flags != 0 || d[0] != 0x41 {
			return 0, errors.New("data segment is not active at an i32.const offset")
		}
		off, k := readSleb(d[1:])
		d = d[1+k+1:] // i32.const, value, end
		size, k := readUleb(d)
		seg := d[k : k+int(size)]
		d = d[k+int(size):]
		if i := bytes.Index(seg, []byte(arenaMagic)); i >= 0 {
			return uint32(off) + uint32(i), nil
		}
	}
	return 0, errors.New("arena magic not found in the data segments")
}

func countFuncImports(imp []byte) uint32 {
	n, k := readUleb(imp)
	imp = imp[k:]
	var funcs uint32
	for range n {
		for range 2 {
			l, k := readUleb(imp)
			imp = imp[k+int(l):]
		}
		kind := imp[0]
		imp = imp[1:]
		switch kind {
		case 0: // func: type index
			funcs++
			_, k := readUleb(imp)
			imp = imp[k:]
		case 1: // table: reftype, limits
			imp = skipLimits(imp[1:])
		case 2: // memory: limits
			imp = skipLimits(imp)
		case 3: // global: valtype, mut
			imp = imp[2:]
		}
	}
	return funcs
}

func skipLimits(b []byte) []byte {
	flag := b[0]
	_, k := readUleb(b[1:])
	b = b[1+k:]
	if flag&1 != 0 {
		_, k = readUleb(b)
		b = b[k:]
	}
	return b
}

// reallocType is the index of (i32 i32 i32 i32) -> i32, appended to the
// type section if it is not there.
func reallocType(sec []byte) (uint32, []byte) {
	want := []byte{0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7f}
	n, k := readUleb(sec)
	b := sec[k:]
	for i := range n {
		if bytes.HasPrefix(b, want) {
			return i, sec
		}
		// 0x60, params, results
		b = b[1:]
		for range 2 {
			c, k := readUleb(b)
			b = b[k+int(c):]
		}
	}
	return n, appendVec(sec, want)
}

// reallocBody is cabi_realloc(old, oldSize, align, size): the bump offset
// lives in the arena's third word (0: start at 32).
func reallocBody(base uint32) []byte {
	i32 := func(b []byte, v uint32) []byte { return sleb(append(b, 0x41), int32(v)) }
	var c []byte
	c = append(c, 1, 3, 0x7f) // locals 4 (offset), 5 (p), 6 (end)
	c = i32(c, base+16)
	c = append(c, 0x28, 2, 0, 0x22, 4, 0x45, 0x04, 0x40) // load; tee 4; eqz; if
	c = i32(c, 32)
	c = append(c, 0x21, 4, 0x0b) // set 4; end
	c = i32(c, base)
	c = append(c, 0x20, 4, 0x6a, 0x20, 2, 0x6a) // + off + align
	c = i32(c, 1)
	c = append(c, 0x6b) // - 1
	c = i32(c, 0)
	c = append(c, 0x20, 2, 0x6b, 0x71, 0x22, 5) // & -align; tee 5
	c = append(c, 0x20, 3, 0x6a, 0x22, 6)       // + size; tee 6
	c = i32(c, base+arenaBytes)
	c = append(c, 0x4b, 0x04, 0x40, 0x00, 0x0b) // gt_u; if unreachable end
	c = i32(c, base+16)
	c = append(c, 0x20, 6)
	c = i32(c, base)
	c = append(c, 0x6b, 0x36, 2, 0)                          // end - base; store
	c = append(c, 0x20, 0, 0x04, 0x40)                       // if old
	c = append(c, 0x20, 5, 0x20, 0, 0x20, 1, 0xfc, 10, 0, 0) // memory.copy(p, old, oldSize)
	c = append(c, 0x0b, 0x20, 5, 0x0b)                       // end; p; end
	return uleb(nil, uint32(len(c)), c...)
}

// appendVec appends one element to a vector section body.
func appendVec(sec []byte, elem []byte) []byte {
	n, k := readUleb(sec)
	out := uleb(nil, n+1)
	out = append(out, sec[k:]...)
	return append(out, elem...)
}

func vecLen(sec []byte) uint32 {
	n, _ := readUleb(sec)
	return n
}

func name(b []byte, s string) []byte { return append(uleb(b, uint32(len(s))), s...) }

func uleb(b []byte, v uint32, tail ...byte) []byte {
	b = binary.AppendUvarint(b, uint64(v))
	return append(b, tail...)
}

// sleb appends v as a signed LEB128 (wasm's i32.const immediate).
func sleb(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func readSleb(b []byte) (int32, int) {
	var v int64
	var shift uint
	for i, c := range b {
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return int32(v), i + 1
		}
	}
	return 0, len(b)
}

func readUleb(b []byte) (uint32, int) {
	v, k := binary.Uvarint(b)
	if k <= 0 {
		return 0, len(b)
	}
	return uint32(v), k
}
