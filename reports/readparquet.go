package reports

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// readBatch is how many rows are decoded at a time.
const readBatch = 1024

// readRows reads the rows of the Parquet file at path, after openChecked
// has checked it against lim, streaming: a page per column is decoded at
// a time, row group after row group. The rows read are counted
// against lim.Rows, and the bytes of their strings against lim.TotalBytes
// and lim.Ratio: a dictionary page repeats a value in every row that
// refers to it, so the rows can hold more than the pages did.
func readRows[T any](path string, lim ReadLimits) (rows []T, err error) {
	defer func() {
		// parquet-go panics on some malformed inputs; a file from
		// elsewhere must not take the process down.
		if p := recover(); p != nil {
			rows, err = nil, malformed(path, "decoding failed: %v", p)
		}
	}()
	c, err := openChecked(path, lim, true)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	pf, err := parquet.OpenFile(c.f, c.size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "read %s", path)
	}
	strBudget := min(lim.TotalBytes, max(lim.RatioFloor, satMul(lim.Ratio, c.size)))
	sizer := newStringSizer[T]()
	rows = make([]T, 0, min(c.meta.NumRows, 1<<16))
	buf := make([]T, readBatch)
	var strBytes int64
	// One reader for the file: it goes through the row groups in order,
	// decoding one page per column at a time (a reader per row group would
	// build new page decoders for each, 11 MB of garbage a group).
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	for {
		n, rerr := r.Read(buf)
		if int64(len(rows)+n) > lim.Rows {
			return nil, limitErr(path, "rows", int64(len(rows)+n), lim.Rows, "the number of rows read")
		}
		if int64(len(rows)+n) > c.meta.NumRows {
			return nil, malformed(path, "holds more rows than its footer's %d", c.meta.NumRows)
		}
		for i := range buf[:n] {
			strBytes += sizer.size(unsafe.Pointer(&buf[i]))
		}
		if strBytes > strBudget {
			return nil, limitErr(path, "ratio", strBytes/max(c.size, 1), lim.Ratio,
				fmt.Sprintf("the rows' strings per file byte (%d bytes of strings from a %d-byte file)", strBytes, c.size))
		}
		rows = append(rows, buf[:n]...)
		clear(buf[:n])
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, errcode.Wrap(errcode.IO, rerr, "read %s", path)
		}
	}
	return rows, nil
}

func satMul(a, b int64) int64 {
	if a > 0 && b > (1<<62)/a {
		return 1 << 62
	}
	return a * b
}

// stringSizer sums the lengths of a row's string and *string fields; it
// finds them once, by reflection, and reads them by offset.
type stringSizer struct {
	strs, ptrs []uintptr
}

func newStringSizer[T any]() stringSizer {
	var s stringSizer
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return s
	}
	for f := range t.Fields() {
		switch {
		case f.Type.Kind() == reflect.String:
			s.strs = append(s.strs, f.Offset)
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.String:
			s.ptrs = append(s.ptrs, f.Offset)
		}
	}
	return s
}

func (s stringSizer) size(p unsafe.Pointer) int64 {
	var n int64
	for _, off := range s.strs {
		n += int64(len(*(*string)(unsafe.Add(p, off))))
	}
	for _, off := range s.ptrs {
		if sp := *(**string)(unsafe.Add(p, off)); sp != nil {
			n += int64(len(*sp))
		}
	}
	return n
}
