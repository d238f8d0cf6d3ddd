package reports

import (
	"encoding/binary"
	"math"
	"os"
	"slices"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// NewSpillingJUnit returns a JUnit that writes each case to an unlinked
// temporary file in dir as it is added and keeps only the case's key, its
// status and where its record lies: junit.xml lists every case of a run
// sorted by key, and holding them all made the report grow with the run
// (BENCHMARKS.md, issue 19). junit.xml comes out byte for byte as from the
// zero value. When the file cannot be made the cases are held in memory.
func NewSpillingJUnit(dir string) *JUnit {
	j := &JUnit{}
	f, err := os.CreateTemp(dir, ".junit-cases-*")
	if err != nil {
		return j
	}
	// Unlinked at once: nothing is left behind when the run is killed.
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return j
	}
	j.spill = f
	return j
}

// spilled is where one spilled case's record lies in the spill file.
// Its status is in the record: 32 bytes a case stay in memory, not 56.
type spilled struct {
	caseID string
	off    int64
	n      uint32
	epoch  int32
}

func (s spilled) key() CaseKey { return CaseKey{CaseID: s.caseID, Epoch: s.epoch} }

// put writes c to the spill file; the first error is kept for Write.
func (j *JUnit) put(c junitCase) {
	if j.err != nil {
		return
	}
	b := j.buf[:0]
	b = binary.AppendUvarint(b, math.Float64bits(c.seconds))
	for _, s := range []string{c.status, c.code, c.stage, c.message} {
		b = appendString(b, s)
	}
	for _, l := range [][]string{c.failures, c.scores, c.notes} {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, s := range l {
			b = appendString(b, s)
		}
	}
	j.buf = b
	if len(b) > math.MaxUint32 {
		j.err = errcode.New(errcode.IO, "spill a junit.xml case: its record is %d bytes", len(b))
		return
	}
	if _, err := j.spill.WriteAt(b, j.size); err != nil {
		j.err = errcode.Wrap(errcode.IO, err, "spill a junit.xml case")
		return
	}
	j.index = append(j.index, spilled{caseID: c.key.CaseID, epoch: c.key.Epoch, off: j.size, n: uint32(len(b))})
	j.size += int64(len(b))
}

// appendString appends s, its length first.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// get reads back the case s points at.
func (j *JUnit) get(s spilled) (junitCase, error) {
	j.buf = slices.Grow(j.buf[:0], int(s.n))[:s.n]
	if _, err := j.spill.ReadAt(j.buf, s.off); err != nil {
		return junitCase{}, errcode.Wrap(errcode.IO, err, "read back a junit.xml case")
	}
	r := spillReader{b: j.buf}
	c := junitCase{key: s.key(), seconds: math.Float64frombits(r.uvarint())}
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
	if r.bad {
		return junitCase{}, errcode.New(errcode.IO, "read back a junit.xml case: the spilled record is damaged")
	}
	return c, nil
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
	j.spill, j.index = nil, nil
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "close the junit.xml spill file")
	}
	return nil
}
