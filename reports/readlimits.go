package reports

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// ReadLimitsEnv is the environment variable that raises (or lowers) the
// read limits, as comma-separated name=value pairs:
// MURMUR_EVAL_READ_LIMITS="rows=50000000,total=32GiB". Only cmd reads it.
const ReadLimitsEnv = "MURMUR_EVAL_READ_LIMITS"

// ReadLimits bound what reading a Parquet file from elsewhere may cost
// (diff, show, report, merge and run --baseline read run folders that
// another machine or person wrote). Every limit is checked from the
// file's footer and page headers before any page is decoded, and each
// page's real decompressed size is checked against its header with a
// bounded decoder first; a file past a limit is refused with
// errcode.ReadLimit naming the file and the limit. The defaults
// (DefaultReadLimits) allow runs of 16 million cases; docs/dashboards.md
// lists them and RATIONALE.md says why.
type ReadLimits struct {
	FileBytes     int64 // "file": the file's size
	FooterBytes   int64 // "footer": the encoded footer (file metadata)
	MetadataBytes int64 // "metadata": the footer's decoded size, estimated from its lists and strings
	Rows          int64 // "rows": rows in the file, declared and read
	RowGroups     int64 // "row-groups": row groups in the file
	Columns       int64 // "columns": leaf columns in the schema
	PageBytes     int64 // "page": one page, compressed or uncompressed (header and real)
	PageValues    int64 // "page-values": values one page declares
	ChunkBytes    int64 // "chunk": one column chunk, uncompressed
	RowGroupBytes int64 // "row-group": one row group, uncompressed
	TotalBytes    int64 // "total": the whole file, uncompressed; also bounds the strings of the rows read
	Ratio         int64 // "ratio": uncompressed / file size, once past RatioFloor
	RatioFloor    int64 // "ratio-floor": uncompressed bytes under which Ratio is not applied
}

// DefaultReadLimits are limits with room for real runs: a 10-million-case
// results.parquet is about 1.7 GB uncompressed in 9,766 row groups, with
// a 28 MB footer, a compression ratio near 15, and pages of 1,024 values.
func DefaultReadLimits() ReadLimits {
	return ReadLimits{
		FileBytes:     16 << 30,
		FooterBytes:   256 << 20,
		MetadataBytes: 2 << 30,
		Rows:          16 << 20, // 16,777,216
		RowGroups:     1 << 20,
		Columns:       1024,
		PageBytes:     64 << 20,
		PageValues:    4 << 20,
		ChunkBytes:    1 << 30,
		RowGroupBytes: 4 << 30,
		TotalBytes:    16 << 30,
		Ratio:         1000,
		RatioFloor:    64 << 20,
	}
}

// limitFields lists the limits by their names in ReadLimitsEnv.
func (l *ReadLimits) limitFields() []struct {
	name string
	v    *int64
	size bool // a byte count: takes KiB, MiB, GiB suffixes
} {
	type f = struct {
		name string
		v    *int64
		size bool
	}
	return []f{
		{"file", &l.FileBytes, true}, {"footer", &l.FooterBytes, true}, {"metadata", &l.MetadataBytes, true},
		{"rows", &l.Rows, false}, {"row-groups", &l.RowGroups, false}, {"columns", &l.Columns, false},
		{"page", &l.PageBytes, true}, {"page-values", &l.PageValues, false}, {"chunk", &l.ChunkBytes, true},
		{"row-group", &l.RowGroupBytes, true}, {"total", &l.TotalBytes, true},
		{"ratio", &l.Ratio, false}, {"ratio-floor", &l.RatioFloor, true},
	}
}

// ParseReadLimits applies "name=value,..." (ReadLimitsEnv's form) to base.
// Sizes take a KiB, MiB or GiB suffix; counts are plain integers. An empty
// string returns base.
func ParseReadLimits(s string, base ReadLimits) (ReadLimits, error) {
	l := base
	fields := l.limitFields()
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		i := -1
		for j, f := range fields {
			if f.name == name {
				i = j
			}
		}
		if !ok || i < 0 {
			return base, errcode.New(errcode.Usage, "%s: %q is not name=value with a known name", ReadLimitsEnv, part).
				WithHint("names: %s", strings.Join(limitNames(), ", "))
		}
		n, err := parseSize(strings.TrimSpace(value), fields[i].size)
		if err != nil || n < 1 {
			return base, errcode.New(errcode.Usage, "%s: %s=%q is not a positive number", ReadLimitsEnv, name, value).
				WithHint("e.g. %s=\"rows=50000000,total=32GiB\"", ReadLimitsEnv)
		}
		*fields[i].v = n
	}
	return l, nil
}

func limitNames() []string {
	var l ReadLimits
	var names []string
	for _, f := range l.limitFields() {
		names = append(names, f.name)
	}
	return names
}

func parseSize(s string, size bool) (int64, error) {
	mult := int64(1)
	if size {
		for _, u := range []struct {
			suffix string
			m      int64
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}} {
			if rest, ok := strings.CutSuffix(s, u.suffix); ok {
				s, mult = strings.TrimSpace(rest), u.m
				break
			}
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("too large")
	}
	return n * mult, nil
}

// limitErr is the refusal of path for being past the named limit.
func limitErr(path, name string, got, limit int64, what string) error {
	return errcode.New(errcode.ReadLimit, "%s: %s is %d, past the read limit %s=%d", path, what, got, name, limit).
		WithHint("a Parquet file this large is refused as a decompression bomb; if it is a real run, raise the limit: %s=\"%s=%d\"",
			ReadLimitsEnv, name, max(got, limit)*2)
}

// malformed is the refusal of path for a structure that no writer makes
// (E-IO-003, as any file that is not a Parquet file).
func malformed(path, format string, args ...any) error {
	return errcode.New(errcode.IO, "%s: not a Parquet file murmur-eval reads: %s", path, fmt.Sprintf(format, args...))
}
