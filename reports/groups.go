package reports

// Rows per Parquet row group of the files a run writes. A sink buffers
// about one row group before it compresses and writes it, so these sizes,
// not the number of cases, bound the sinks' memory: with 50,000 events per
// group a 20,000-case run held ten times the rows of a 1,000-case run
// (BENCHMARKS.md). Smaller groups cost a little compression and a few more
// footer entries; readers do not notice at these sizes. Results and
// scores rows are wide and one or a few per case: a 1,000-case run fills a
// results group already, so larger runs hold no more of them.
const (
	ResultsPerGroup = 1024
	ScoresPerGroup  = 2048
	EventsPerGroup  = 8192
)
