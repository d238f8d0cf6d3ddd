package reports

import (
	"errors"
	"io"
	"os"
	"sync"
)

// pageSpill is the parquet.BufferPool a Sink's writer keeps its encoded,
// compressed pages in until their row group is written: unlinked files in
// the output's folder instead of memory. With pages on disk a row group
// costs a sink only the page being filled in each column, so row groups can
// be large and few, and the footer metadata parquet-go holds in memory
// until Close (about a kilobyte per column per row group) stops growing
// with the number of cases (BENCHMARKS.md and RATIONALE.md, issue 19).
//
// The files are removed as soon as they are made, so nothing is left
// behind if the process dies (where the file system cannot unlink an open
// file, Close removes them); a file given back is truncated and reused by
// the next row group. Close releases them all.
type pageSpill struct {
	dir string

	mu    sync.Mutex
	free  []*os.File
	all   []*os.File
	named []string // files that could not be unlinked when made
}

func newPageSpill(dir string) *pageSpill { return &pageSpill{dir: dir} }

// GetBuffer returns an empty file; an error is returned by the buffer's
// methods, as parquet-go expects of a pool.
func (p *pageSpill) GetBuffer() io.ReadWriteSeeker {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		f := p.free[n-1]
		p.free = p.free[:n-1]
		return f
	}
	f, err := os.CreateTemp(p.dir, ".pages-*")
	if err != nil {
		return failedBuffer{err}
	}
	if os.Remove(f.Name()) != nil {
		// A file system that cannot unlink an open file (some network
		// and FUSE ones) still has a name: Close removes it.
		p.named = append(p.named, f.Name())
	}
	p.all = append(p.all, f)
	return f
}

// PutBuffer takes a file back for reuse. A file that cannot be emptied is
// dropped (Close still closes it): reusing it would copy its stale bytes
// into the next row group.
func (p *pageSpill) PutBuffer(b io.ReadWriteSeeker) {
	f, ok := b.(*os.File)
	if !ok {
		return
	}
	if f.Truncate(0) != nil {
		return
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return
	}
	p.mu.Lock()
	p.free = append(p.free, f)
	p.mu.Unlock()
}

// Close closes every file the pool made; a nil pool has none.
func (p *pageSpill) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, f := range p.all {
		errs = append(errs, f.Close())
	}
	for _, name := range p.named {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	p.all, p.free, p.named = nil, nil, nil
	return errors.Join(errs...)
}

// failedBuffer is a buffer the pool could not make: every call fails with
// the reason, which the writer returns from its next Write or Flush.
type failedBuffer struct{ err error }

func (b failedBuffer) Read([]byte) (int, error)       { return 0, b.err }
func (b failedBuffer) Write([]byte) (int, error)      { return 0, b.err }
func (b failedBuffer) Seek(int64, int) (int64, error) { return 0, b.err }
