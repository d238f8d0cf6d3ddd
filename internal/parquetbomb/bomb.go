// Package parquetbomb writes Parquet decompression bombs for tests: small
// files, valid in every other way, whose pages expand far past what their
// headers declare. It is for tests only.
package parquetbomb

import (
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// zeros returns a zstd frame of n zero bytes, made by streaming (so that
// building a 1 GiB bomb does not take 1 GiB).
func zeros(n int64) ([]byte, error) {
	var out sliceWriter
	enc, err := zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(8<<20))
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, int64(len(buf)))
		if _, err := enc.Write(buf[:k]); err != nil {
			return nil, err
		}
		n -= k
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.b, nil
}

type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// lyingCodec says zstd and compresses honestly, except that its first
// page is replaced by the bomb: the page header keeps the page's real
// (small) uncompressed size.
type lyingCodec struct {
	mu   sync.Mutex
	bomb []byte
	used bool
	enc  *zstd.Encoder
	dec  *zstd.Decoder
}

func (c *lyingCodec) String() string                            { return "ZSTD" }
func (c *lyingCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

func (c *lyingCodec) Encode(dst, src []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.used {
		c.used = true
		return append(dst[:0], c.bomb...), nil
	}
	return c.enc.EncodeAll(src, dst[:0]), nil
}

func (c *lyingCodec) Decode(dst, src []byte) ([]byte, error) { return c.dec.DecodeAll(src, dst[:0]) }

// WriteResults writes to path a results.parquet of rows whose first page
// (the run_id column's) decompresses to expand zero bytes.
func WriteResults(path string, expand int64, rows []reports.ResultRow) error {
	bomb, err := zeros(expand)
	if err != nil {
		return err
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	defer enc.Close()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer dec.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[reports.ResultRow](f, parquet.Compression(&lyingCodec{bomb: bomb, enc: enc, dec: dec}))
	if _, err := w.Write(rows); err != nil {
		_ = f.Close()
		return err
	}
	if err := w.Close(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

var _ io.Writer = (*sliceWriter)(nil)
