//go:build linux

package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestHugePageSize(t *testing.T) {
	for _, tc := range []struct {
		name, enabled, size string
		want                int
	}{
		{"madvise", "always [madvise] never\n", "2097152\n", 2 << 20},
		{"always", "[always] madvise never\n", "2097152\n", 2 << 20},
		{"never", "always madvise [never]\n", "2097152\n", 0},
		{"no size", "always [madvise] never\n", "", 0},
		{"not a power of two", "always [madvise] never\n", "3000000\n", 0},
		{"64 KiB base pages (512 MiB)", "always [madvise] never\n", "536870912\n", 0},
		{"16 KiB base pages (32 MiB)", "always [madvise] never\n", "33554432\n", 0},
		{"1 MiB", "always [madvise] never\n", "1048576\n", 1 << 20},
		{"garbage", "always [madvise] never\n", "two megs\n", 0},
		{"no THP", "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir() + "/"
			if tc.enabled != "" {
				writeFile(t, filepath.Join(dir, "enabled"), tc.enabled)
			}
			if tc.size != "" {
				writeFile(t, filepath.Join(dir, "hpage_pmd_size"), tc.size)
			}
			got, why := hugePageSize(dir)
			if got != tc.want {
				t.Fatalf("hugePageSize = %d (%s), want %d", got, why, tc.want)
			}
			if got == 0 && why == "" {
				t.Fatal("no reason given for 0")
			}
		})
	}
}

// TestAdviseMarksAnUntouchedRegion: the advised range is a mapping of its
// own with the kernel's huge-page advice flag (VmFlags "hg"), inside the Go
// heap, and the runtime did not touch it (its RSS is a small part of it).
func TestAdviseMarksAnUntouchedRegion(t *testing.T) {
	if size, why := hugePageSize(thpDir); size == 0 {
		t.Skip(why)
	}
	const n = 64 << 20
	lo, hi, why := advise(n)
	if why != "" {
		t.Fatalf("advise: %s", why)
	}
	if hi-lo != n {
		t.Fatalf("advised %d bytes, want %d", hi-lo, n)
	}
	m := mappingAt(t, lo)
	if !m.flags["hg"] {
		t.Fatalf("mapping %x-%x has VmFlags %v, want hg (MADV_HUGEPAGE)", m.lo, m.hi, m.flags)
	}
	if m.lo > lo || m.hi < hi {
		t.Fatalf("mapping %x-%x does not cover the advised %x-%x", m.lo, m.hi, lo, hi)
	}
	if m.rssKB*1024 > n/4 {
		t.Fatalf("advised region has %d KiB resident: the runtime touched it", m.rssKB)
	}
	// What the kernel then does with the region is its business (it can
	// fall back to small pages); the log says what it did here.
	keep := make([][]byte, 0, 4096)
	for range 4096 {
		keep = append(keep, make([]byte, 4096))
	}
	for _, b := range keep {
		b[0] = 1
	}
	t.Logf("after 16 MiB of small allocations: %+v", mappingAt(t, lo))
}

func TestAdviseRefuses(t *testing.T) {
	if a := Advise(0); a.Bytes != 0 || a.Reason == "" {
		t.Fatalf("Advise(0) = %+v", a)
	}
	if size, why := hugePageSize(thpDir); size == 0 {
		t.Skip(why)
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur == unix.RLIM_INFINITY {
		// A finite limit far above anything mapped, restored afterwards.
		limited := lim
		limited.Cur = 1 << 62
		if lim.Max != unix.RLIM_INFINITY && lim.Max < limited.Cur {
			limited.Cur = lim.Max
		}
		if err := unix.Setrlimit(unix.RLIMIT_AS, &limited); err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() {
			if err := unix.Setrlimit(unix.RLIMIT_AS, &lim); err != nil {
				t.Error(err)
			}
		})
	}
	if a := Advise(64 << 20); a.Bytes != 0 || !strings.Contains(a.Reason, "ulimit -v") {
		t.Fatalf("under a limit: %+v", a)
	}
}

type mapping struct {
	lo, hi        uintptr
	rssKB, hugeKB int
	flags         map[string]bool
}

// mappingAt reads /proc/self/smaps for the mapping holding addr.
func mappingAt(t *testing.T, addr uintptr) mapping {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var cur *mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				if cur != nil {
					return *cur
				}
				if uintptr(a) <= addr && addr < uintptr(b) {
					cur = &mapping{lo: uintptr(a), hi: uintptr(b), flags: map[string]bool{}}
				}
				continue
			}
		}
		if cur == nil {
			continue
		}
		switch fields[0] {
		case "Rss:":
			cur.rssKB, _ = strconv.Atoi(fields[1])
		case "AnonHugePages:":
			cur.hugeKB, _ = strconv.Atoi(fields[1])
		case "VmFlags:":
			for _, f := range fields[1:] {
				cur.flags[f] = true
			}
		}
	}
	if cur == nil {
		t.Fatalf("no mapping holds %#x", addr)
	}
	return *cur
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (m mapping) String() string {
	return fmt.Sprintf("%x-%x rss %d KiB, huge %d KiB", m.lo, m.hi, m.rssKB, m.hugeKB)
}
