package reports

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"io"
	"iter"
	"math"
	"os"
	"slices"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// NewSpillingJUnit returns a JUnit that keeps nothing per case in memory:
// junit.xml lists every case of a run sorted by key, and holding them, or
// even an index of them, made the report grow with the run (BENCHMARKS.md,
// issue 19). Cases are gathered in batches of spillBatch; each batch is
// sorted and written as one run to an unlinked temporary file in dir, and
// Write merges the runs. junit.xml comes out byte for byte as from the
// zero value. When the file cannot be made the cases are held in memory.
func NewSpillingJUnit(dir string) *JUnit {
	j := &JUnit{batch: spillBatch}
	f, err := os.CreateTemp(dir, ".junit-cases-*")
	if err != nil {
		return &JUnit{}
	}
	// Unlinked at once: nothing is left behind when the run is killed.
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return &JUnit{}
	}
	j.spill = f
	return j
}

// spillBatch is how many cases a spilling JUnit holds before it writes
// them out as a sorted run: about 600 KiB, whatever the run's size, and no
// more than a 1,000-case run holds; a 100,000-case run makes 98 runs,
// merged with a 4 KiB buffer each.
const spillBatch = 1024

// spillRun is one sorted run's place in the spill file.
type spillRun struct{ off, n int64 }

// add keeps c in the batch, and writes the batch out when it is full; the
// first error is kept for Write.
func (j *JUnit) add(c junitCase) {
	if j.err != nil {
		return
	}
	j.cases = append(j.cases, c)
	if len(j.cases) >= j.batch {
		j.flushRun()
	}
}

// flushRun sorts the batch and appends it to the spill file as one run.
// The sort is stable, as Write's sort of held cases is: cases of one key
// (attempts of a retried case) stay in the order they were added.
func (j *JUnit) flushRun() {
	if len(j.cases) == 0 || j.err != nil {
		return
	}
	sortCases(j.cases)
	b := j.buf[:0]
	for _, c := range j.cases {
		j.rec = appendRecordBody(j.rec[:0], c)
		b = append(binary.AppendUvarint(b, uint64(len(j.rec))), j.rec...)
	}
	if _, err := j.spill.WriteAt(b, j.size); err != nil {
		j.err = errcode.Wrap(errcode.IO, err, "spill junit.xml cases")
		return
	}
	j.runs = append(j.runs, spillRun{off: j.size, n: int64(len(b))})
	j.size += int64(len(b))
	j.spilled += len(j.cases)
	clear(j.cases) // drop the strings for the collector
	j.cases = j.cases[:0]
	if cap(b) > 1<<20 {
		b = nil // one huge batch does not keep its buffer all run
	}
	if cap(j.rec) > 1<<20 {
		j.rec = nil
	}
	j.buf = b
}

func sortCases(cs []junitCase) {
	slices.SortStableFunc(cs, func(a, b junitCase) int { return a.key.compare(b.key) })
}

// appendRecordBody appends c's record (its length goes before it).
func appendRecordBody(body []byte, c junitCase) []byte {
	body = appendString(body, c.key.CaseID)
	body = binary.AppendUvarint(body, uint64(uint32(c.key.Epoch)))
	body = appendString(body, c.key.Variant)
	body = binary.AppendUvarint(body, math.Float64bits(c.seconds))
	for _, s := range []string{c.status, c.code, c.stage, c.message} {
		body = appendString(body, s)
	}
	for _, l := range [][]string{c.failures, c.scores, c.notes} {
		body = binary.AppendUvarint(body, uint64(len(l)))
		for _, s := range l {
			body = appendString(body, s)
		}
	}
	return body
}

// appendString appends s, its length first.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// spilledCases yields the spilled runs merged in key order (ties in run
// order, so in the order added), then stops at the first error.
func (j *JUnit) spilledCases() iter.Seq2[junitCase, error] {
	return func(yield func(junitCase, error) bool) {
		h := &runHeap{}
		for i, r := range j.runs {
			rr := &runReader{r: bufio.NewReaderSize(io.NewSectionReader(j.spill, r.off, r.n), 4096), left: r.n, order: i}
			ok, err := rr.next()
			if err != nil {
				yield(junitCase{}, err)
				return
			}
			if ok {
				h.rs = append(h.rs, rr)
			}
		}
		heap.Init(h)
		for h.Len() > 0 {
			rr := h.rs[0]
			if !yield(rr.head, nil) {
				return
			}
			ok, err := rr.next()
			switch {
			case err != nil:
				yield(junitCase{}, err)
				return
			case ok:
				heap.Fix(h, 0)
			default:
				heap.Pop(h)
			}
		}
	}
}

// runReader reads one sorted run; head is its next case.
type runReader struct {
	r     *bufio.Reader
	left  int64 // bytes of the run not read yet
	order int
	head  junitCase
	buf   []byte
}

// next reads the run's next case into head; false at the run's end.
func (rr *runReader) next() (bool, error) {
	if rr.left == 0 {
		return false, nil
	}
	damaged := errcode.New(errcode.IO, "read back a junit.xml case: the spilled record is damaged")
	n, err := binary.ReadUvarint(rr.r)
	if err != nil {
		return false, errcode.Wrap(errcode.IO, err, "read back a junit.xml case")
	}
	size := int64(n)
	if n > uint64(rr.left) {
		return false, damaged
	}
	rr.left -= int64(len(binary.AppendUvarint(nil, n)))
	if size > rr.left {
		return false, damaged
	}
	rr.buf = slices.Grow(rr.buf[:0], int(size))[:size]
	if _, err := io.ReadFull(rr.r, rr.buf); err != nil {
		return false, errcode.Wrap(errcode.IO, err, "read back a junit.xml case")
	}
	rr.left -= size
	c, ok := decodeRecord(rr.buf)
	if !ok {
		return false, damaged
	}
	rr.head = c
	return true, nil
}

// decodeRecord decodes the body of a record appendRecord wrote.
func decodeRecord(b []byte) (junitCase, bool) {
	r := spillReader{b: b}
	var c junitCase
	c.key.CaseID = r.string()
	c.key.Epoch = int32(uint32(r.uvarint()))
	c.key.Variant = r.string()
	c.seconds = math.Float64frombits(r.uvarint())
	c.status, c.code, c.stage, c.message = r.string(), r.string(), r.string(), r.string()
	for _, l := range []*[]string{&c.failures, &c.scores, &c.notes} {
		if n := r.uvarint(); n > 0 && !r.bad {
			*l = make([]string, 0, min(n, uint64(len(r.b))))
			for range n {
				if r.bad {
					break
				}
				*l = append(*l, r.string())
			}
		}
	}
	return c, !r.bad && len(r.b) == 0
}

// runHeap orders the runs by their head's key, then by run.
type runHeap struct{ rs []*runReader }

func (h *runHeap) Len() int { return len(h.rs) }
func (h *runHeap) Less(a, b int) bool {
	if c := h.rs[a].head.key.compare(h.rs[b].head.key); c != 0 {
		return c < 0
	}
	return h.rs[a].order < h.rs[b].order
}
func (h *runHeap) Swap(a, b int) { h.rs[a], h.rs[b] = h.rs[b], h.rs[a] }
func (h *runHeap) Push(x any)    { h.rs = append(h.rs, x.(*runReader)) }
func (h *runHeap) Pop() any {
	last := h.rs[len(h.rs)-1]
	h.rs = h.rs[:len(h.rs)-1]
	return last
}

// spillReader decodes a spilled record; bad is set when it runs short.
type spillReader struct {
	b   []byte
	bad bool
}

func (r *spillReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *spillReader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// Close closes the spill file, if any; the JUnit is not used afterwards.
func (j *JUnit) Close() error {
	if j.spill == nil {
		return nil
	}
	err := j.spill.Close()
	j.spill, j.runs, j.cases = nil, nil, nil
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "close the junit.xml spill file")
	}
	return nil
}
