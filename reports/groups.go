package reports

// Layout is how a Sink lays its rows out: how many rows a row group holds,
// and where a row group's pages wait until it is written.
type Layout struct {
	// RowsPerGroup closes a row group every this many rows; at least 1.
	RowsPerGroup int
	// SpillPages keeps a row group's encoded and compressed pages in
	// unlinked files next to the output until the group is written
	// (pageSpill), instead of in memory: a row group then costs the sink
	// only the page being filled in each column, so groups can be large.
	SpillPages bool
	// PageBytes bounds the uncompressed bytes of a column's page being
	// filled; 0 is parquet-go's default (256 KiB).
	PageBytes int
	// NoBounds are columns whose pages get no min/max bounds in the
	// column index: blobs, such as a verbatim trace line, whose bounds no
	// reader can use.
	NoBounds []string
}

// Rows per Parquet row group of the files a run writes (RATIONALE.md, "Why
// these row groups?"). Results and scores are one or a few rows per case:
// their pages spill to disk, so a group can hold a whole nightly run and
// the footer metadata parquet-go keeps in memory until the file closes
// (about a kilobyte per column per group) does not grow with the cases.
// Events are many per case and their trace lines need large pages to
// compress well: they stay in memory in groups of 8,192, about 2 MB of
// trace lines, which a 1,000-case run already fills.
const (
	ResultsPerGroup = 128 << 10
	ScoresPerGroup  = 128 << 10
	EventsPerGroup  = 8192

	// spilledPageBytes is the page size of the spilled sinks: each of
	// their columns holds one page being filled, and 32 KiB pages
	// compress these narrow columns as well as the default 256 KiB.
	spilledPageBytes = 32 << 10
)

// ResultsLayout is results.parquet's layout.
func ResultsLayout() Layout {
	return Layout{RowsPerGroup: ResultsPerGroup, SpillPages: true, PageBytes: spilledPageBytes}
}

// ScoresLayout is scores.parquet's layout.
func ScoresLayout() Layout {
	return Layout{RowsPerGroup: ScoresPerGroup, SpillPages: true, PageBytes: spilledPageBytes}
}

// EventsLayout is events.parquet's layout.
func EventsLayout() Layout {
	return Layout{RowsPerGroup: EventsPerGroup, NoBounds: []string{"event_json"}}
}
