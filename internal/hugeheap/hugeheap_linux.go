package hugeheap

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// thpDir is where the kernel describes its transparent huge pages.
const thpDir = "/sys/kernel/mm/transparent_hugepage/"

// Advise grows the Go heap by n bytes (rounded up to whole huge pages) of
// address space advised MADV_HUGEPAGE, and returns them to the allocator.
// Call it early, while the heap holds little: then the region comes from
// fresh memory, which the runtime neither zeroes nor touches (RSS does not
// move). Later, the allocation may reuse free spans of the heap and zero
// them: the advice applies all the same and the release gives the pages
// back, but the zeroing costs time (in-process tests call it that way). It
// does nothing under an address-space limit (RLIMIT_AS), where reserving
// more could make a later allocation fail, or when THP is "never" or
// absent; a failed madvise leaves the heap as it would have been.
func Advise(n int) Advised {
	lo, hi, why := advise(n)
	return Advised{Bytes: int(hi - lo), Reason: why}
}

// advise is Advise, returning the advised range for the tests.
func advise(n int) (lo, hi uintptr, why string) {
	if n <= 0 {
		return 0, 0, "nothing asked"
	}
	if strconv.IntSize < 64 {
		// A region the size of the heap again is too much of a 32-bit
		// address space, and a failed allocation in Go is fatal.
		return 0, 0, "a 32-bit address space"
	}
	page, why := hugePageSize(thpDir)
	if page == 0 {
		return 0, 0, why
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &lim); err == nil && lim.Cur != unix.RLIM_INFINITY {
		return 0, 0, "an address-space limit (ulimit -v) is set"
	}
	n = (n + page - 1) / page * page
	// One page more, so that n bytes aligned to a huge page fit inside.
	region := make([]byte, n+page)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(region)))
	off := int((base+uintptr(page)-1)/uintptr(page)*uintptr(page) - base)
	err := unix.Madvise(region[off:off+n], unix.MADV_HUGEPAGE)
	lo = base + uintptr(off)
	runtime.KeepAlive(region)
	region = nil
	// Collect the region and release it now, while it is still untouched:
	// releasing never-touched pages costs the kernel nothing, and the
	// background scavenger then has nothing of it left to do during the run.
	debug.FreeOSMemory()
	if err != nil {
		return 0, 0, "madvise: " + err.Error()
	}
	return lo, lo + uintptr(n), ""
}

// hugePageSize is the kernel's PMD-sized transparent huge page, or 0 and
// why when the kernel has none or its mode is "never".
func hugePageSize(dir string) (int, string) {
	mode, err := os.ReadFile(dir + "enabled")
	if err != nil {
		return 0, "the kernel has no transparent huge pages"
	}
	if strings.Contains(string(mode), "[never]") {
		return 0, "transparent huge pages are off (never)"
	}
	b, err := os.ReadFile(dir + "hpage_pmd_size")
	if err != nil {
		return 0, "the kernel has no transparent huge pages"
	}
	size, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || size <= 0 || size&(size-1) != 0 {
		return 0, "unexpected hpage_pmd_size " + strings.TrimSpace(string(b))
	}
	if size > maxHugePage {
		// A kernel with 64 KiB base pages (some arm64 distributions) has
		// 512 MiB PMD pages: one touched byte would make 512 MiB resident.
		return 0, "huge pages of " + strconv.Itoa(size>>20) + " MiB are too coarse for a heap"
	}
	return size, ""
}

// maxHugePage is the largest huge page Advise uses: x86-64's and 4 KiB-page
// arm64's 2 MiB.
const maxHugePage = 2 << 20
