package reports

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// maxBatch caps how many rows Run holds before handing them to the Parquet
// writer; the writer copies them into column buffers, so the batch is reused.
const maxBatch = 512

// Sink streams rows of type T into one Parquet file. T is a struct with
// parquet tags, such as ResultRow or EventRow.
//
// The file is written under a temporary name in the destination's directory
// and renamed to its final path only when the row stream ends, so a reader
// never sees a half-written file and an aborted run leaves nothing behind.
//
// Concurrency: Run is the one goroutine that owns the file; feed it through
// the channel from as many goroutines as you like. Count may be called from
// any goroutine at any time. Run and Abort must be called at most once, and
// not concurrently with each other.
type Sink[T any] struct {
	path         string
	tmp          *os.File
	w            *parquet.GenericWriter[T]
	codec        *zstdCodec
	pages        *pageSpill // nil unless the layout spills pages
	rowsPerGroup int
	inGroup      int // rows in the row group being built
	count        atomic.Int64
	done         bool // Run or Abort has finished with tmp
}

// NewSink creates the temporary file ".<name>.tmp-<random>" next to path and
// returns a Sink that will write to it, laid out as l says. Every
// l.RowsPerGroup rows Run closes a Parquet row group, which bounds the
// writer's memory to about one row group whatever the number of rows (to
// a page per column when l.SpillPages).
//
// Creating the file here, not in Run, reports an unwritable output directory
// before any case runs. A Sink whose Run will never be called must be Aborted
// to remove the temporary file.
func NewSink[T any](path string, l Layout) (*Sink[T], error) {
	if l.RowsPerGroup < 1 || l.PageBytes < 0 {
		return nil, errcode.New(errcode.Internal, "parquet sink %s: rows per group must be at least 1 and page bytes not negative, got %d and %d", path, l.RowsPerGroup, l.PageBytes)
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "create parquet file for %s", path)
	}
	// Zstd rather than snappy: event_json is repetitive JSON that zstd packs
	// markedly smaller at a still cheap default level, and every reader the
	// dashboards use (DuckDB, Arrow, pyarrow, Spark) decodes it.
	codec, err := newZstdCodec()
	if err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return nil, errcode.Wrap(errcode.Internal, err, "zstd encoder for %s", path)
	}
	opts := []parquet.WriterOption{parquet.Compression(codec)}
	var pages *pageSpill
	if l.SpillPages {
		pages = newPageSpill(dir)
		opts = append(opts, parquet.ColumnPageBuffers(pages))
	}
	if l.PageBytes > 0 {
		opts = append(opts, parquet.PageBufferSize(l.PageBytes))
	}
	for _, c := range l.NoBounds {
		opts = append(opts, parquet.SkipPageBounds(c))
	}
	w := parquet.NewGenericWriter[T](tmp, opts...)
	return &Sink[T]{path: path, tmp: tmp, w: w, codec: codec, pages: pages, rowsPerGroup: l.RowsPerGroup}, nil
}

// Run receives rows until the channel is closed, writing them as they arrive,
// then finishes the Parquet file, fsyncs it and atomically renames it to the
// path given to NewSink. Closing the channel is how the caller says "done".
//
// Cancelling ctx means abort, not finish: Run stops receiving, removes the
// temporary file and returns ctx.Err(); rows still in the channel are
// dropped. Senders must therefore select on ctx.Done() too, as they must to
// survive an error from Run (an errgroup does both). Any other failure is
// returned with code errcode.IO, after removing the temporary file.
func (s *Sink[T]) Run(ctx context.Context, rows <-chan T) error {
	if s.done {
		return errcode.New(errcode.Internal, "parquet sink %s: Run called after the sink finished", s.path)
	}
	batch := make([]T, 0, min(maxBatch, s.rowsPerGroup))
	for {
		select {
		case <-ctx.Done():
			return s.abort(ctx.Err())
		case r, ok := <-rows:
			if !ok {
				if err := s.write(batch); err != nil {
					return s.abort(err)
				}
				if err := ctx.Err(); err != nil {
					return s.abort(err)
				}
				if err := s.finish(); err != nil {
					return s.abort(err)
				}
				return nil
			}
			batch = append(batch, r)
			if len(batch) == cap(batch) || s.inGroup+len(batch) == s.rowsPerGroup {
				if err := s.write(batch); err != nil {
					return s.abort(err)
				}
				clear(batch) // drop references held by the rows' pointers
				batch = batch[:0]
			}
		}
	}
}

// write hands batch to the Parquet writer and closes the row group when it
// is full. The caller keeps batch within the current row group.
func (s *Sink[T]) write(batch []T) error {
	if len(batch) == 0 {
		return nil
	}
	n, err := s.w.Write(batch)
	s.inGroup += n
	s.count.Add(int64(n))
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "write parquet rows to %s", s.tmp.Name())
	}
	if s.inGroup >= s.rowsPerGroup {
		if err := s.w.Flush(); err != nil {
			return errcode.Wrap(errcode.IO, err, "write parquet row group to %s", s.tmp.Name())
		}
		s.inGroup = 0
	}
	return nil
}

// finish writes the footer, makes the bytes durable and publishes the file.
func (s *Sink[T]) finish() error {
	tmp := s.tmp.Name()
	err := s.w.Close()
	s.codec.close()
	if cerr := s.pages.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "finish parquet file %s", tmp)
	}
	if err := s.tmp.Chmod(0o644); err != nil { // CreateTemp made it 0600
		return errcode.Wrap(errcode.IO, err, "chmod %s", tmp)
	}
	if err := s.tmp.Sync(); err != nil {
		return errcode.Wrap(errcode.IO, err, "sync %s", tmp)
	}
	if err := s.tmp.Close(); err != nil {
		return errcode.Wrap(errcode.IO, err, "close %s", tmp)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return errcode.Wrap(errcode.IO, err, "rename %s to %s", tmp, s.path)
	}
	s.done = true
	syncDir(filepath.Dir(s.path))
	return nil
}

// syncDir makes a rename in dir durable. It is best effort: the file itself
// is already synced, and some systems cannot fsync a directory.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// abort removes the temporary file and returns cause.
func (s *Sink[T]) abort(cause error) error {
	if err := s.Abort(); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// Abort removes the temporary file without publishing anything. It is for a
// Sink whose Run will never be called (Run cleans up after itself); after Run
// has returned, Abort does nothing. Abort must not be called while Run runs.
func (s *Sink[T]) Abort() error {
	if s.done {
		return nil
	}
	s.done = true
	s.codec.close()
	_ = s.pages.Close() // the spilled pages go with the file
	tmp := s.tmp.Name()
	_ = s.tmp.Close() // the file is being discarded; only its removal matters
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return errcode.Wrap(errcode.IO, err, "remove %s", tmp)
	}
	return nil
}

// Count returns the number of rows handed to the Parquet writer so far. After
// Run returns nil it is the number of rows in the published file.
func (s *Sink[T]) Count() int64 { return s.count.Load() }
