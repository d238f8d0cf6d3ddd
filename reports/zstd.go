package reports

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdCodec is parquet's zstd codec with one encoder kept for the sink's
// life. parquet-go's own codec keeps its encoders in a pool that every
// garbage collection empties, so a long run rebuilt an encoder, and its
// multi-megabyte history, after nearly every collection (48 MB allocated in
// a 512-case run, BENCHMARKS.md). Pages are small, so a 1 MiB window loses
// nothing. EncodeAll is safe for concurrent use.
type zstdCodec struct {
	enc *zstd.Encoder

	decOnce   sync.Once
	dec       *zstd.Decoder
	decErr    error
	closeOnce sync.Once
}

// zstdWindow bounds the encoder's history: larger than a page.
const zstdWindow = 1 << 20

func newZstdCodec() (*zstdCodec, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(zstdWindow),
		zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return nil, err
	}
	return &zstdCodec{enc: enc}, nil
}

func (c *zstdCodec) String() string { return "ZSTD" }

func (c *zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}

// Decode is never used by a sink (it only writes); it is here for the
// interface, with a decoder made on first use.
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) {
	c.decOnce.Do(func() { c.dec, c.decErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)) })
	if c.decErr != nil {
		return dst[:0], c.decErr
	}
	return c.dec.DecodeAll(src, dst[:0])
}

// close releases the encoder's and decoder's goroutines and buffers; it
// may be called more than once.
func (c *zstdCodec) close() {
	c.closeOnce.Do(func() {
		_ = c.enc.Close()
		if c.dec != nil {
			c.dec.Close()
		}
	})
}
