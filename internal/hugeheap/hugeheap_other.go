//go:build !linux

package hugeheap

// Advise does nothing where there is no madvise(MADV_HUGEPAGE).
func Advise(n int) Advised {
	return Advised{Reason: "transparent huge pages are a Linux feature"}
}
