package reports

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// checkedFile is a Parquet file whose footer and every page header passed
// the read limits, and whose pages were found to decompress to no more
// than their headers say: parquet-go may decode it.
type checkedFile struct {
	f    *os.File
	size int64
	// footerLen is the encoded footer's length: pages lie before it.
	footerLen int64
	meta      format.FileMetaData
	// uncompressed is the sum of the pages' uncompressed sizes.
	uncompressed int64
}

// maxPageHeader bounds one encoded page header; real ones are tens of
// bytes, with statistics a few kilobytes.
const maxPageHeader = 4 << 20

// openChecked opens path (a regular file, without blocking on a FIFO) and
// checks it against lim before anything of it is decoded. With pages
// false only the footer is checked (enough to read the schema).
func openChecked(path string, lim ReadLimits, pages bool) (*checkedFile, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, openErr(path, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if err != nil {
		_ = f.Close()
		return nil, errcode.Wrap(errcode.IO, err, "read %s", path)
	}
	c := &checkedFile{f: f, size: fi.Size()}
	if err := c.checkFooter(path, lim); err != nil {
		_ = f.Close()
		return nil, err
	}
	if pages {
		if err := c.checkPages(path, lim); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	return c, nil
}

func (c *checkedFile) Close() error { return c.f.Close() }

// checkFooter reads the footer, walks it (thriftWalk) and decodes it,
// then checks the file's shape: rows, row groups, columns, and where
// each column chunk lies.
func (c *checkedFile) checkFooter(path string, lim ReadLimits) error {
	if c.size > lim.FileBytes {
		return limitErr(path, "file", c.size, lim.FileBytes, "the file's size")
	}
	if c.size < 12 {
		return malformed(path, "%d bytes is too short", c.size)
	}
	var tail [8]byte
	if _, err := c.f.ReadAt(tail[:], c.size-8); err != nil {
		return errcode.Wrap(errcode.IO, err, "read %s", path)
	}
	var head [4]byte
	if _, err := c.f.ReadAt(head[:], 0); err != nil {
		return errcode.Wrap(errcode.IO, err, "read %s", path)
	}
	if string(head[:]) != "PAR1" || string(tail[4:]) != "PAR1" {
		return malformed(path, "no PAR1 magic (an encrypted or non-Parquet file)")
	}
	footerLen := int64(binary.LittleEndian.Uint32(tail[:4]))
	if footerLen > c.size-12 {
		return malformed(path, "footer of %d bytes in a file of %d", footerLen, c.size)
	}
	if footerLen > lim.FooterBytes {
		return limitErr(path, "footer", footerLen, lim.FooterBytes, "the footer's size")
	}
	c.footerLen = footerLen
	footer := make([]byte, footerLen)
	if _, err := c.f.ReadAt(footer, c.size-8-footerLen); err != nil {
		return errcode.Wrap(errcode.IO, err, "read %s", path)
	}
	n, cost, err := walkStruct(footer)
	if err != nil {
		return malformed(path, "footer: %v", err)
	}
	if n != len(footer) {
		return malformed(path, "footer: %d bytes after the metadata", len(footer)-n)
	}
	if cost > lim.MetadataBytes {
		return limitErr(path, "metadata", cost, lim.MetadataBytes, "the footer's decoded size (estimated)")
	}
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &c.meta); err != nil {
		return malformed(path, "footer: %v", err)
	}
	return c.checkShape(path, lim)
}

// checkShape checks the decoded metadata against the limits and the file.
func (c *checkedFile) checkShape(path string, lim ReadLimits) error {
	m := &c.meta
	if m.NumRows < 0 {
		return malformed(path, "%d rows", m.NumRows)
	}
	if m.NumRows > lim.Rows {
		return limitErr(path, "rows", m.NumRows, lim.Rows, "the number of rows")
	}
	if n := int64(len(m.RowGroups)); n > lim.RowGroups {
		return limitErr(path, "row-groups", n, lim.RowGroups, "the number of row groups")
	}
	leaves := int64(0)
	for _, s := range m.Schema {
		if !s.NumChildren.Valid || s.NumChildren.V == 0 {
			leaves++
		}
	}
	if leaves > lim.Columns || int64(len(m.Schema)) > 4*lim.Columns+1 {
		return limitErr(path, "columns", max(leaves, int64(len(m.Schema))/4), lim.Columns, "the number of columns")
	}
	var rows int64
	dataEnd := c.size - 8 - c.footerLen
	for i, rg := range m.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > lim.Rows-rows {
			return limitErr(path, "rows", rows+max(rg.NumRows, 0), lim.Rows, fmt.Sprintf("the number of rows (row group %d)", i))
		}
		rows += rg.NumRows
		if int64(len(rg.Columns)) != leaves {
			return malformed(path, "row group %d has %d column chunks for %d columns", i, len(rg.Columns), leaves)
		}
		var group int64
		for j, cc := range rg.Columns {
			md := &cc.MetaData
			where := fmt.Sprintf("row group %d column %d", i, j)
			if cc.FilePath != "" {
				return malformed(path, "%s lives in another file (%q)", where, cc.FilePath)
			}
			if len(cc.EncryptedColumnMetadata) > 0 || cc.CryptoMetadata.Value != nil {
				return malformed(path, "%s is encrypted", where)
			}
			start := chunkStart(md)
			if start < 4 || md.TotalCompressedSize < 0 || md.TotalCompressedSize > dataEnd-start {
				return malformed(path, "%s lies outside the file (offset %d, %d bytes)", where, start, md.TotalCompressedSize)
			}
			if md.TotalUncompressedSize < 0 || md.NumValues < 0 {
				return malformed(path, "%s declares negative sizes", where)
			}
			if md.TotalUncompressedSize > lim.ChunkBytes {
				return limitErr(path, "chunk", md.TotalUncompressedSize, lim.ChunkBytes, "the uncompressed size of "+where)
			}
			group += md.TotalUncompressedSize
			if _, ok := pageCodecs[md.Codec]; !ok {
				return malformed(path, "%s uses compression %s", where, md.Codec)
			}
		}
		if group > lim.RowGroupBytes {
			return limitErr(path, "row-group", group, lim.RowGroupBytes, fmt.Sprintf("the uncompressed size of row group %d", i))
		}
	}
	if rows != m.NumRows {
		return malformed(path, "the row groups hold %d rows, the file says %d", rows, m.NumRows)
	}
	return nil
}

// chunkStart is where a column chunk's first page is, as parquet-go reads
// it: the dictionary page when there is one.
func chunkStart(md *format.ColumnMetaData) int64 {
	if md.DictionaryPageOffset != 0 {
		return md.DictionaryPageOffset
	}
	return md.DataPageOffset
}

// checkPages walks every page header of every column chunk, checking its
// sizes and value count, and decompresses each page with a bounded
// decoder (pagecheck.go) to check that it holds no more than its header
// says: parquet-go trusts the header to size its buffer and then lets the
// decompressor grow it without bound.
func (c *checkedFile) checkPages(path string, lim ReadLimits) error {
	v := newPageVerifier(lim.PageBytes)
	defer v.close()
	var total int64
	hdr := make([]byte, 0, 4096)
	for i, rg := range c.meta.RowGroups {
		var group int64
		for j, cc := range rg.Columns {
			md := &cc.MetaData
			where := fmt.Sprintf("row group %d column %d", i, j)
			pos, end := chunkStart(md), chunkStart(md)+md.TotalCompressedSize
			var chunk int64
			for pos < end {
				var h format.PageHeader
				var n int
				var err error
				h, n, hdr, err = c.pageHeader(pos, end, hdr)
				if err != nil {
					return malformed(path, "%s: page header at offset %d: %v", where, pos, err)
				}
				pos += int64(n)
				if err := checkPageHeader(path, where, &h, lim); err != nil {
					return err
				}
				if int64(h.CompressedPageSize) > end-pos {
					return malformed(path, "%s: a page of %d bytes runs past its column chunk", where, h.CompressedPageSize)
				}
				if err := v.verify(io.NewSectionReader(c.f, pos, int64(h.CompressedPageSize)), &h, md.Codec); err != nil {
					var e *errcode.Error
					if errors.As(err, &e) && e.Code == errcode.ReadLimit {
						return errcode.New(errcode.ReadLimit, "%s: %s: page at offset %d: %s", path, where, pos, e.Msg).
							WithHint("%s", e.Hint)
					}
					return malformed(path, "%s: page at offset %d: %v", where, pos, err)
				}
				pos += int64(h.CompressedPageSize)
				chunk += int64(h.UncompressedPageSize)
				if chunk > lim.ChunkBytes {
					return limitErr(path, "chunk", chunk, lim.ChunkBytes, "the uncompressed size of "+where)
				}
			}
			group += chunk
			if group > lim.RowGroupBytes {
				return limitErr(path, "row-group", group, lim.RowGroupBytes, fmt.Sprintf("the uncompressed size of row group %d", i))
			}
		}
		total += group
		if total > lim.TotalBytes {
			return limitErr(path, "total", total, lim.TotalBytes, "the uncompressed size")
		}
	}
	if total > lim.RatioFloor && total/max(c.size, 1) > lim.Ratio {
		return limitErr(path, "ratio", total/max(c.size, 1), lim.Ratio,
			fmt.Sprintf("the compression ratio (%d bytes uncompressed in a %d-byte file)", total, c.size))
	}
	c.uncompressed = total
	return nil
}

// pageHeader reads and decodes the page header at pos, reading a window
// that grows until the header fits (at most maxPageHeader bytes).
func (c *checkedFile) pageHeader(pos, end int64, buf []byte) (format.PageHeader, int, []byte, error) {
	var h format.PageHeader
	window := int64(256)
	for {
		want := min(window, end-pos, maxPageHeader)
		if int64(cap(buf)) < want {
			buf = make([]byte, want)
		}
		buf = buf[:want]
		if _, err := c.f.ReadAt(buf, pos); err != nil {
			return h, 0, buf, err
		}
		n, cost, err := walkStruct(buf)
		if errors.Is(err, errThriftShort) && want < min(end-pos, maxPageHeader) {
			window *= 8
			continue
		}
		if err != nil {
			return h, 0, buf, err
		}
		if cost > maxPageHeader {
			return h, 0, buf, fmt.Errorf("declares %d bytes of statistics", cost)
		}
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), buf[:n], &h); err != nil {
			return h, 0, buf, err
		}
		return h, n, buf, nil
	}
}

// checkPageHeader checks one page header's sizes and value counts.
func checkPageHeader(path, where string, h *format.PageHeader, lim ReadLimits) error {
	if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 {
		return malformed(path, "%s: a page declares a negative size", where)
	}
	if int64(h.UncompressedPageSize) > lim.PageBytes {
		return limitErr(path, "page", int64(h.UncompressedPageSize), lim.PageBytes, "the uncompressed size of a page of "+where)
	}
	if int64(h.CompressedPageSize) > lim.PageBytes {
		return limitErr(path, "page", int64(h.CompressedPageSize), lim.PageBytes, "the compressed size of a page of "+where)
	}
	values := int64(0)
	switch {
	case h.DataPageHeader.Valid:
		values = int64(h.DataPageHeader.V.NumValues)
	case h.DataPageHeaderV2.Valid:
		d := h.DataPageHeaderV2.V
		values = max(int64(d.NumValues), int64(d.NumRows), int64(d.NumNulls))
		levels := int64(d.RepetitionLevelsByteLength) + int64(d.DefinitionLevelsByteLength)
		if d.RepetitionLevelsByteLength < 0 || d.DefinitionLevelsByteLength < 0 ||
			levels > int64(h.CompressedPageSize) || levels > int64(h.UncompressedPageSize) {
			return malformed(path, "%s: a page's levels do not fit in it", where)
		}
	case h.DictionaryPageHeader.Valid:
		values = int64(h.DictionaryPageHeader.V.NumValues)
	}
	if values < 0 {
		return malformed(path, "%s: a page declares a negative value count", where)
	}
	if values > lim.PageValues {
		return limitErr(path, "page-values", values, lim.PageValues, "the values of a page of "+where)
	}
	return nil
}
