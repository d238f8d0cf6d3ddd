package reports

import (
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// pageCodecs are the compressions a page may use: those parquet-go reads
// and pageVerifier can check with a bounded decoder.
var pageCodecs = map[format.CompressionCodec]bool{ //nolint:gochecknoglobals // read-only set of the page codecs
	format.Uncompressed: true, format.Snappy: true, format.Gzip: true,
	format.Brotli: true, format.Zstd: true, format.Lz4Raw: true,
}

// pageVerifier decompresses pages with decoders whose output is bounded by
// the page header's uncompressed size, to find a page that holds more
// than its header says before parquet-go decodes it. Its memory is one
// page at most.
type pageVerifier struct {
	pageBytes int64
	zstd      *zstd.Decoder
	src, dst  []byte
}

func newPageVerifier(pageBytes int64) *pageVerifier {
	return &pageVerifier{pageBytes: pageBytes}
}

func (v *pageVerifier) close() {
	if v.zstd != nil {
		v.zstd.Close()
	}
}

// verify checks that the page (its compressed bytes in r) decompresses to
// no more than h.UncompressedPageSize bytes, and without error.
func (v *pageVerifier) verify(r io.Reader, h *format.PageHeader, codec format.CompressionCodec) error {
	if codec == format.Uncompressed {
		return nil
	}
	limit := int64(h.UncompressedPageSize)
	compressed := int64(h.CompressedPageSize)
	switch {
	case h.DataPageHeaderV2.Valid:
		d := h.DataPageHeaderV2.V
		if d.IsCompressed.Valid && !d.IsCompressed.V {
			return nil
		}
		levels := int64(d.RepetitionLevelsByteLength) + int64(d.DefinitionLevelsByteLength)
		if _, err := io.CopyN(io.Discard, r, levels); err != nil {
			return err
		}
		compressed -= levels
	case h.DataPageHeader.Valid, h.DictionaryPageHeader.Valid:
	default:
		return nil // parquet-go decodes no other page
	}
	n, err := v.decompressed(io.LimitReader(r, compressed), compressed, limit, codec)
	if err != nil {
		return err
	}
	if n > limit {
		return errcode.New(errcode.ReadLimit, "decompresses to more than the %d bytes its header declares", limit).
			WithHint("the file is corrupt or a decompression bomb")
	}
	return nil
}

// decompressed returns how many bytes the compressed page in r decodes to,
// counting no further than limit+1.
func (v *pageVerifier) decompressed(r io.Reader, compressed, limit int64, codec format.CompressionCodec) (int64, error) {
	switch codec {
	case format.Zstd:
		// DecodeAll into a buffer of exactly the declared size, with the
		// cap as the limit: memory is the page's declared size, which
		// checkPageHeader bounded.
		if v.zstd == nil {
			d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
				zstd.WithDecoderMaxMemory(uint64(max(v.pageBytes, 1<<20))))
			if err != nil {
				return 0, err
			}
			v.zstd = d
		}
		src, err := v.read(r, compressed)
		if err != nil {
			return 0, err
		}
		out, err := v.zstd.DecodeAll(src, v.buffer(limit))
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return limit + 1, nil
		}
		return int64(len(out)), err
	case format.Gzip:
		z, err := gzip.NewReader(r)
		if err != nil {
			return 0, err
		}
		n, err := io.CopyN(io.Discard, z, limit+1)
		if err == io.EOF {
			err = nil
		}
		return n, err
	case format.Brotli:
		n, err := io.CopyN(io.Discard, brotli.NewReader(r), limit+1)
		if err == io.EOF {
			err = nil
		}
		return n, err
	case format.Snappy:
		src, err := v.read(r, compressed)
		if err != nil {
			return 0, err
		}
		n, err := snappy.DecodedLen(src)
		return int64(n), err
	case format.Lz4Raw:
		src, err := v.read(r, compressed)
		if err != nil {
			return 0, err
		}
		n, err := lz4.UncompressBlock(src, v.buffer(limit)[:limit])
		if err != nil {
			return 0, fmt.Errorf("lz4: %w (or more than %d bytes)", err, limit)
		}
		return int64(n), nil
	}
	return 0, fmt.Errorf("compression %s is not read", codec)
}

// buffer returns an empty slice of capacity exactly limit.
func (v *pageVerifier) buffer(limit int64) []byte {
	if int64(cap(v.dst)) < limit {
		v.dst = make([]byte, limit)
	}
	return v.dst[:0:limit]
}

// read reads n compressed bytes (n is at most the page limit).
func (v *pageVerifier) read(r io.Reader, n int64) ([]byte, error) {
	if int64(cap(v.src)) < n {
		v.src = make([]byte, n)
	}
	v.src = v.src[:n]
	_, err := io.ReadFull(r, v.src)
	return v.src, err
}
