// Package hugeheap asks the kernel to back the Go heap's next bytes with
// transparent huge pages.
//
// Under Linux's default THP mode ("madvise") anonymous memory gets 2 MiB
// pages only where a program asked with madvise(MADV_HUGEPAGE), and the Go
// runtime asks only for its own metadata. A run with a thousand sessions in
// flight touches its heap 4 KiB at a time: ~45,000 page faults at the 1 s
// waiting point, a third of the run's CPU on a virtual machine whose faults
// cost ~14 µs (BENCHMARKS.md, issue 19, session 12). Advise grows the heap
// by a region of address space, advises it, and gives it back to the
// allocator untouched, so the heap the run then builds lands in 2 MiB pages
// (RATIONALE.md, "Why does a run advise huge pages for its heap?").
package hugeheap

// Advised is what Advise did: the bytes of heap address space advised,
// and, when that is 0, why not (not Linux, THP off or absent, huge pages
// over 2 MiB, a 32-bit process, an address-space limit, madvise failed).
type Advised struct {
	Bytes  int
	Reason string
}
