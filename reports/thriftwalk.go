package reports

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/parquet-go/parquet-go/format"
)

// Parquet's footer and page headers are Thrift compact-protocol structs.
// parquet-go's decoder allocates what a list or string declares before
// reading it (up to 2^31 elements), and recurses into nested structs
// without a bound, so a few bytes can ask for gigabytes or a stack
// overflow. thriftWalk goes over the bytes first without allocating:
// every declared length must fit in the bytes that are left, nesting is
// bounded, and the memory the decoded structs would take is estimated so
// that the caller can refuse it before parquet-go decodes anything.

// errThriftShort: the bytes end inside the struct (a page header longer
// than the window read so far).
var errThriftShort = errors.New("thrift struct ends past the bytes read")

// thriftMaxDepth bounds struct nesting; Parquet's deepest is about 6.
const thriftMaxDepth = 32

// thriftElemCost is what one decoded list element is counted as: a struct
// is counted as the largest struct in Parquet's metadata (a column chunk),
// so the estimate bounds the real allocation from above.
var thriftElemCost = [16]int64{ //nolint:gochecknoglobals // read-only table of costs by thrift type
	1: 8, 2: 8, 3: 8, 4: 8, 5: 8, 6: 8, 7: 8,
	8:  int64(unsafe.Sizeof([]byte(nil))),
	9:  int64(unsafe.Sizeof([]int(nil))),
	10: int64(unsafe.Sizeof([]int(nil))),
	11: 48,
	12: int64(unsafe.Sizeof(format.ColumnChunk{})),
}

// thriftWalk is a pass over one compact-protocol struct in b.
type thriftWalk struct {
	b    []byte
	pos  int
	cost int64 // estimated bytes the decoded struct takes
}

// walkStruct walks the struct at the start of b and returns its encoded
// length and estimated decoded size.
func walkStruct(b []byte) (n int, cost int64, err error) {
	w := &thriftWalk{b: b}
	if err := w.structBody(0); err != nil {
		return 0, 0, err
	}
	return w.pos, w.cost, nil
}

func (w *thriftWalk) byte1() (byte, error) {
	if w.pos >= len(w.b) {
		return 0, errThriftShort
	}
	c := w.b[w.pos]
	w.pos++
	return c, nil
}

func (w *thriftWalk) uvarint() (uint64, error) {
	var x uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := w.byte1()
		if err != nil {
			return 0, err
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, fmt.Errorf("thrift varint longer than 10 bytes")
}

func (w *thriftWalk) skip(n uint64) error {
	if n > uint64(len(w.b)-w.pos) {
		return errThriftShort
	}
	w.pos += int(n)
	return nil
}

func (w *thriftWalk) structBody(depth int) error {
	if depth > thriftMaxDepth {
		return fmt.Errorf("thrift structs nested deeper than %d", thriftMaxDepth)
	}
	for {
		h, err := w.byte1()
		if err != nil {
			return err
		}
		if h == 0 { // stop
			return nil
		}
		if h>>4 == 0 { // long form: the field id follows as a zigzag varint
			if _, err := w.uvarint(); err != nil {
				return err
			}
		}
		if err := w.value(h&0x0f, depth); err != nil {
			return err
		}
	}
}

// minSize is the fewest bytes one value of type t takes.
func minSize(t byte) uint64 {
	if t == 7 { // double
		return 8
	}
	return 1
}

func (w *thriftWalk) value(t byte, depth int) error {
	switch t {
	case 1, 2: // bool in a field header
		return nil
	case 3: // byte
		return w.skip(1)
	case 4, 5, 6: // i16, i32, i64
		_, err := w.uvarint()
		return err
	case 7: // double
		return w.skip(8)
	case 8: // binary
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		w.cost += int64(min(n, 1<<40))
		return w.skip(n)
	case 9, 10: // list, set
		h, err := w.byte1()
		if err != nil {
			return err
		}
		size := uint64(h >> 4)
		if size == 0x0f {
			if size, err = w.uvarint(); err != nil {
				return err
			}
		}
		elem := h & 0x0f
		if elem == 0 || elem > 12 {
			return fmt.Errorf("thrift list of unknown type %d", elem)
		}
		return w.elements(size, []byte{elem}, depth)
	case 11: // map
		size, err := w.uvarint()
		if err != nil {
			return err
		}
		if size == 0 {
			return nil
		}
		kv, err := w.byte1()
		if err != nil {
			return err
		}
		k, v := kv>>4, kv&0x0f
		if k == 0 || k > 12 || v == 0 || v > 12 {
			return fmt.Errorf("thrift map of unknown types %d, %d", k, v)
		}
		return w.elements(size, []byte{k, v}, depth)
	case 12: // struct
		return w.structBody(depth + 1)
	}
	return fmt.Errorf("thrift field of unknown type %d", t)
}

// elements walks size list (or map) elements of the given types, after
// checking that they can fit in the bytes left: the length is what the
// decoder would allocate for.
func (w *thriftWalk) elements(size uint64, types []byte, depth int) error {
	var least, cost uint64
	for _, t := range types {
		least += minSize(t)
		cost += uint64(thriftElemCost[t])
	}
	if size > uint64(len(w.b)-w.pos)/least {
		return errThriftShort
	}
	w.cost += int64(size * cost)
	for range size {
		for _, t := range types {
			et := t
			if et == 1 || et == 2 { // bools in a list take a byte each
				if err := w.skip(1); err != nil {
					return err
				}
				continue
			}
			if err := w.value(et, depth); err != nil {
				return err
			}
		}
	}
	return nil
}
