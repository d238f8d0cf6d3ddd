package datasets

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// A loaded Dataset keeps, per case, a 32-bit hash of its line and its
// case_id front-coded against the one before it (a few bytes for ids that
// share a prefix), where the parsed Case took 176 bytes and its strings.
// Where a line lies is kept per block of up to blockCases consecutive
// cases whose lines span at most about blockBytes: Case reads the block's
// bytes again and finds the case's line among them. Line numbers are kept
// only where they stop following the case's index (a blank line). So a
// 100,000-case dataset holds well under a megabyte all run (BENCHMARKS.md
// and RATIONALE.md, issue 19).

// A block closes after blockCases cases, or once its lines span
// blockBytes: a case's read is at most that and its own line.
const (
	blockCases = 32
	blockBytes = 4 << 10
)

// block is where a run of consecutive cases lies in the dataset file.
type block struct {
	off   int64  // where its first case's line starts
	n     uint32 // bytes from there to the end of its last case's line
	first uint32 // its first case's index
	ids   uint32 // where its ids start in the arena
}

// lineJump says that from case from on, a case's line number is its
// index plus 1 plus add.
type lineJump struct{ from, add uint32 }

// index is what a Dataset keeps of its cases, in file order.
type index struct {
	seed   maphash.Seed
	sums   []uint32 // per case, sum32 of its line
	blocks []block
	jumps  []lineJump
	// ids holds each block's ids in order, each as uvarint(bytes shared
	// with the id before it in the block), uvarint(len(rest)), rest.
	ids []byte
}

// line is case i's 1-based line number.
func (x *index) line(i int) int {
	// The last jump at or before i.
	k, _ := slices.BinarySearchFunc(x.jumps, uint32(i)+1, func(j lineJump, t uint32) int { return cmp.Compare(j.from, t) })
	if k == 0 {
		return i + 1
	}
	return i + 1 + int(x.jumps[k-1].add)
}

// block returns the block that holds case i.
func (x *index) block(i int) block {
	k, _ := slices.BinarySearchFunc(x.blocks, uint32(i)+1, func(b block, t uint32) int { return cmp.Compare(b.first, t) })
	return x.blocks[k-1]
}

// id decodes case i's id from its block's front-coded ids.
func (x *index) id(i int) string {
	b := x.block(i)
	var id []byte
	p := x.ids[b.ids:]
	for range i - int(b.first) + 1 {
		shared, n1 := binary.Uvarint(p)
		size, n2 := binary.Uvarint(p[n1:])
		p = p[n1+n2:]
		id = append(id[:shared], p[:size]...)
		p = p[size:]
	}
	return string(id)
}

func sum32(seed maphash.Seed, b []byte) uint32 {
	h := maphash.Bytes(seed, b)
	return uint32(h ^ h>>32)
}

// indexer builds an index while the dataset loads.
type indexer struct {
	seed    maphash.Seed
	sums    []uint32
	blocks  []block
	jumps   []lineJump
	lastAdd uint32 // the last jump's add
	ids     []byte
	lastID  string // the id before, in the current block
}

// add records a good case's line (its number n) that starts at off; a
// line, a file or an arena past 4 GiB is refused.
func (x *indexer) add(id string, line []byte, off int64, n int) *errcode.Error {
	i := len(x.sums)
	if len(line) > math.MaxUint32/2 || n > math.MaxUint32 || i >= math.MaxUint32 || len(x.ids)+len(id)+2*binary.MaxVarintLen64 > math.MaxUint32 {
		return errcode.New(errcode.EvalDataset, "line too long, or too many case ids (4 GiB)").
			WithHint("split the dataset")
	}
	if add := uint32(n - i - 1); add != x.lastAdd {
		x.jumps = append(x.jumps, lineJump{from: uint32(i), add: add})
		x.lastAdd = add
	}
	k := len(x.blocks) - 1
	if k < 0 || i-int(x.blocks[k].first) >= blockCases || x.blocks[k].n >= blockBytes ||
		off+int64(len(line))-x.blocks[k].off > math.MaxUint32 {
		x.blocks = append(x.blocks, block{off: off, first: uint32(i), ids: uint32(len(x.ids))})
		k++
		x.lastID = ""
	}
	x.blocks[k].n = uint32(off + int64(len(line)) - x.blocks[k].off)
	x.sums = append(x.sums, sum32(x.seed, line))
	shared := 0
	for shared < len(id) && shared < len(x.lastID) && id[shared] == x.lastID[shared] {
		shared++
	}
	x.ids = binary.AppendUvarint(x.ids, uint64(shared))
	x.ids = binary.AppendUvarint(x.ids, uint64(len(id)-shared))
	x.ids = append(x.ids, id[shared:]...)
	x.lastID = id
	return nil
}

// done returns the index, its lists copied to their exact length: the
// append slack would be held all run.
func (x *indexer) done() index {
	return index{seed: x.seed, sums: exact(x.sums), blocks: exact(x.blocks), jumps: slices.Clip(x.jumps), ids: exact(x.ids)}
}

func exact[T any](s []T) []T {
	if cap(s)-len(s) > len(s)/16 {
		return append(make([]T, 0, len(s)), s...)
	}
	return s
}

// Len is the number of cases.
func (d *Dataset) Len() int { return len(d.idx.sums) }

// ID returns case i's case_id without reading its line.
func (d *Dataset) ID(i int) string { return d.idx.id(i) }

// Line returns the 1-based line number of case i.
func (d *Dataset) Line(i int) int { return d.idx.line(i) }

// Case reads case i's line again and parses it with the checks of the
// load (task file, workspace; not duplicates, which the load checked for
// the whole file). It may be called concurrently. A line whose bytes
// changed since the load (the file edited in place during the run) is
// E-IO-003 naming the file and line; the Case returned with an error
// carries the id and line number, for the case's row.
func (d *Dataset) Case(i int) (Case, error) {
	line := d.idx.line(i)
	failed := Case{ID: d.ID(i), Line: line}
	where := func() string { return d.Path + ":" + strconv.Itoa(line) }
	buf, err := d.readLine(i)
	switch {
	case errors.Is(err, errLineChanged):
		return failed, errcode.New(errcode.IO, "case %q: its line changed since the dataset was loaded", failed.ID).At(where()).
			WithHint("the dataset was edited during the run; leave it unchanged until the run ends, or run again")
	case err != nil:
		return failed, errcode.Wrap(errcode.IO, err, "case %q: cannot read its line again", failed.ID).At(where())
	}
	p := d.parser // a copy: parseLine keeps state of the line it reads
	c, perr := p.parseLine(buf, line)
	if perr != nil {
		w := where()
		if perr.Where != "" {
			w += ":" + perr.Where
		}
		return failed, perr.At(w)
	}
	return c, nil
}

var errLineChanged = errors.New("line changed")

// readLine reads case i's line again, with its line ending, as the load
// read it: from its block's bytes, the block's how-manieth line that is
// not blank. Bytes that differ from the load's are errLineChanged.
func (d *Dataset) readLine(i int) ([]byte, error) {
	b := d.idx.block(i)
	buf, _ := d.spans.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	defer d.spans.Put(buf)
	if cap(*buf) < int(b.n) {
		*buf = make([]byte, b.n)
	}
	span := (*buf)[:b.n]
	if _, err := d.file.ReadAt(span, b.off); errors.Is(err, io.EOF) {
		return nil, errLineChanged
	} else if err != nil {
		return nil, err
	}
	for k := i - int(b.first); len(span) > 0; {
		end := len(span)
		if nl := bytes.IndexByte(span, '\n'); nl >= 0 {
			end = nl + 1
		}
		line := span[:end]
		span = span[end:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if k > 0 {
			k--
			continue
		}
		if sum32(d.idx.seed, line) != d.idx.sums[i] {
			return nil, errLineChanged
		}
		// The line's own copy: the parsed Case may keep parts of it, and
		// must not keep the whole block alive.
		return bytes.Clone(line), nil
	}
	return nil, errLineChanged
}

// All yields every case in file order, read again as Case reads one; it
// stops after the first error, which it yields with the failed Case.
func (d *Dataset) All() iter.Seq2[Case, error] {
	return func(yield func(Case, error) bool) {
		for i := range d.Len() {
			c, err := d.Case(i)
			if !yield(c, err) || err != nil {
				return
			}
		}
	}
}
