// Package parquettest reads Parquet files back with apache/arrow-go, a
// reader independent of murmur-eval's writer (parquet-go), so that tests
// check what dashboards will see. It is for tests only.
package parquettest

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Column is what a reader sees of one column: the contract tests pin.
type Column struct {
	Name     string
	Type     string // arrow.DataType.String(), e.g. "timestamp[ms, tz=UTC]"
	Nullable bool
}

// Table is a Parquet file as arrow-go decodes it.
type Table struct {
	Columns   []Column
	Rows      [][]any // one []any per row, in column order; nil is null
	RowGroups []int64 // rows per row group
	// Codecs holds the compression of every column chunk, row group by
	// row group.
	Codecs []compress.Compression
}

// Read decodes the whole file at path. Values become plain Go values:
// string, int32, int64, float64, time.Time (UTC) or nil for null.
func Read(t testing.TB, path string) Table {
	t.Helper()
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("arrow: open %s: %v", path, err)
	}
	defer rdr.Close()

	var d Table
	for i := range rdr.NumRowGroups() {
		rg := rdr.RowGroup(i)
		d.RowGroups = append(d.RowGroups, rg.NumRows())
		for c := range rg.MetaData().NumColumns() {
			cc, err := rg.MetaData().ColumnChunk(c)
			if err != nil {
				t.Fatalf("arrow: column chunk %d of row group %d: %v", c, i, err)
			}
			d.Codecs = append(d.Codecs, cc.Compression())
		}
	}

	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("arrow: reader for %s: %v", path, err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("arrow: read %s: %v", path, err)
	}
	defer tbl.Release()

	for _, f := range tbl.Schema().Fields() {
		d.Columns = append(d.Columns, Column{Name: f.Name, Type: f.Type.String(), Nullable: f.Nullable})
	}
	d.Rows = make([][]any, tbl.NumRows())
	for r := range d.Rows {
		d.Rows[r] = make([]any, tbl.NumCols())
	}
	for c := range int(tbl.NumCols()) {
		r := 0
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			for i := range chunk.Len() {
				d.Rows[r][c] = value(t, chunk, i)
				r++
			}
		}
	}
	return d
}

// Maps returns the rows as maps from column name to value.
func (d Table) Maps() []map[string]any {
	out := make([]map[string]any, len(d.Rows))
	for r, row := range d.Rows {
		m := make(map[string]any, len(row))
		for c, v := range row {
			m[d.Columns[c].Name] = v
		}
		out[r] = m
	}
	return out
}

// value converts element i of an arrow array to a plain Go value.
func value(t testing.TB, a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC()
	default:
		t.Fatalf("arrow: unexpected array type %s", a.DataType())
		return nil
	}
}
