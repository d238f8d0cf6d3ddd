package datasets

import (
	"cmp"
	"errors"
	"hash/maphash"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// A loaded Dataset keeps, per case, where its line lies and a hash of the
// line's bytes (16 bytes), and its case_id in one arena (4 bytes and the
// id's length), where the parsed Case took 176 bytes and its strings. Line
// numbers are kept only where they stop following the case's index (a
// blank line, a bad line). Case reads the line again when the case runs
// (BENCHMARKS.md and RATIONALE.md, issue 19).

// lineRef is where one case's line lies in the dataset file and a 32-bit
// hash of its bytes: enough to notice an edit, not an attack (the dataset
// is the user's own input, read from the file the load opened).
type lineRef struct {
	off int64
	n   uint32
	sum uint32
}

// lineJump says that from case from on, a case's line number is its
// index plus 1 plus add.
type lineJump struct{ from, add uint32 }

// index is what a Dataset keeps of its cases, in file order.
type index struct {
	seed  maphash.Seed
	lines []lineRef
	jumps []lineJump
	// idEnd[i] is where case i's id ends in ids; it starts where case
	// i-1's ends.
	idEnd []uint32
	ids   string
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

func sum32(seed maphash.Seed, b []byte) uint32 {
	h := maphash.Bytes(seed, b)
	return uint32(h ^ h>>32)
}

// indexer builds an index while the dataset loads.
type indexer struct {
	seed    maphash.Seed
	lines   []lineRef
	jumps   []lineJump
	lastAdd uint32 // the last jump's add
	idEnd   []uint32
	ids     []byte
}

// add records a good case's line (its number n); a line, a file or an arena
// past 4 GiB is refused.
func (x *indexer) add(id string, line []byte, off int64, n int) *errcode.Error {
	i := len(x.lines)
	if len(line) > math.MaxUint32 || n > math.MaxUint32 || i >= math.MaxUint32 || len(x.ids)+len(id) > math.MaxUint32 {
		return errcode.New(errcode.EvalDataset, "line too long, or too many case ids (4 GiB)").
			WithHint("split the dataset")
	}
	if add := uint32(n - i - 1); add != x.lastAdd {
		x.jumps = append(x.jumps, lineJump{from: uint32(i), add: add})
		x.lastAdd = add
	}
	x.lines = append(x.lines, lineRef{off: off, n: uint32(len(line)), sum: sum32(x.seed, line)})
	x.ids = append(x.ids, id...)
	x.idEnd = append(x.idEnd, uint32(len(x.ids)))
	return nil
}

// done returns the index, its lists copied to their exact length: the
// append slack would be held all run.
func (x *indexer) done() index {
	return index{seed: x.seed, lines: exact(x.lines), jumps: slices.Clip(x.jumps), idEnd: exact(x.idEnd), ids: string(x.ids)}
}

func exact[T any](s []T) []T {
	if cap(s)-len(s) > len(s)/16 {
		return append(make([]T, 0, len(s)), s...)
	}
	return s
}

// Len is the number of cases.
func (d *Dataset) Len() int { return len(d.idx.lines) }

// ID returns case i's case_id without reading its line.
func (d *Dataset) ID(i int) string {
	start := uint32(0)
	if i > 0 {
		start = d.idx.idEnd[i-1]
	}
	return d.idx.ids[start:d.idx.idEnd[i]]
}

// Line returns the 1-based line number of case i.
func (d *Dataset) Line(i int) int { return d.idx.line(i) }

// Case reads case i's line again and parses it with the checks of the
// load (task file, workspace; not duplicates, which the load checked for
// the whole file). It may be called concurrently. A line whose bytes
// changed since the load (the file edited in place during the run) is
// E-IO-003 naming the file and line; the Case returned with an error
// carries the id and line number, for the case's row.
func (d *Dataset) Case(i int) (Case, error) {
	ref, line := d.idx.lines[i], d.idx.line(i)
	failed := Case{ID: d.ID(i), Line: line}
	where := func() string { return d.Path + ":" + strconv.Itoa(line) }
	buf := make([]byte, ref.n)
	_, err := d.file.ReadAt(buf, ref.off)
	switch {
	case errors.Is(err, io.EOF) || (err == nil && sum32(d.idx.seed, buf) != ref.sum):
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
