package hugeheap

// Region is how much of the heap a run of this many workers advises for
// huge pages before it starts (Advise): 64 MiB for what
// every run holds (the Parquet writers and their zstd encoders, the token
// ranks, the dataset's index), and 192 KiB a worker for two sessions in
// flight (one live, one prepared ahead) with the collector's headroom. At
// 1,024 workers that is 256 MiB; the 1 s waiting point's heap mapping
// peaked at ~140 MiB, and 128 MiB advised left a third of its faults
// (BENCHMARKS.md, issue 19, session 12). It is address space, not memory:
// only the pages the heap touches become resident. Capped at 1 GiB.
func Region(workers int) int {
	const base, perWorker, most = 64 << 20, 192 << 10, 1 << 30
	return min(base+max(workers, 0)*perWorker, most)
}
