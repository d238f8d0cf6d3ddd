package reports

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/murmur-nexus/murmur-eval/internal/parquettest"
)

// This file reads Parquet back with apache/arrow-go, a reader independent of
// the writer (parquet-go), so the tests check what dashboards will see.

// column is what a reader sees of one column: the contract the tests pin
// (a local copy of parquettest.Column, so tests can write it unkeyed).
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

// readParquet decodes the whole file at path with arrow-go (parquettest)
// and checks that every column chunk is zstd-compressed, as the sink
// promises.
func readParquet(t testing.TB, path string) decoded {
	t.Helper()
	d := parquettest.Read(t, path)
	for i, codec := range d.Codecs {
		if codec != compress.Codecs.Zstd {
			t.Errorf("%s: column chunk %d: compression %v, want zstd", path, i, codec)
		}
	}
	return decoded{Columns: columns(d.Columns), Rows: d.Rows, RowGroups: d.RowGroups}
}

func columns(cs []parquettest.Column) []column {
	out := make([]column, len(cs))
	for i, c := range cs {
		out[i] = column(c)
	}
	return out
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
