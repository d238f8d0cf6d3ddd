package reports

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// This file reads Parquet back with apache/arrow-go, a reader independent of
// the writer (parquet-go), so the tests check what dashboards will see.

// column is what a reader sees of one column: the contract the tests pin.
type column struct {
	Name     string
	Type     string // arrow.DataType.String(), e.g. "timestamp[ms, tz=UTC]"
	Nullable bool
}

// decoded is a Parquet file as arrow reads it.
type decoded struct {
	Columns   []column
	Rows      [][]any // one []any per row; nil is null
	RowGroups []int64 // rows per row group
}

// readParquet decodes the whole file at path. Values become Go values:
// string, int32, int64, float64, time.Time (UTC) or nil for null.
func readParquet(t testing.TB, path string) decoded {
	t.Helper()
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("arrow: open %s: %v", path, err)
	}
	defer rdr.Close()

	var d decoded
	for i := range rdr.NumRowGroups() {
		rg := rdr.RowGroup(i)
		d.RowGroups = append(d.RowGroups, rg.NumRows())
		for c := range rg.MetaData().NumColumns() {
			cc, err := rg.MetaData().ColumnChunk(c)
			if err != nil {
				t.Fatalf("arrow: column chunk %d of row group %d: %v", c, i, err)
			}
			if got := cc.Compression(); got != compress.Codecs.Zstd {
				t.Errorf("row group %d column %d: compression %v, want zstd", i, c, got)
			}
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
		d.Columns = append(d.Columns, column{Name: f.Name, Type: f.Type.String(), Nullable: f.Nullable})
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
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC()
	default:
		t.Fatalf("arrow: unexpected array type %s", a.DataType())
		return nil
	}
}

// opt turns a nullable field into what readParquet decodes: nil or the value.
func opt[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// ms truncates t to what a millisecond timestamp column keeps.
func ms(t time.Time) time.Time { return t.Truncate(time.Millisecond).UTC() }

// describe labels row r for failure messages.
func describe(r int, row []any) string { return fmt.Sprintf("row %d (%v)", r, row[:2]) }
