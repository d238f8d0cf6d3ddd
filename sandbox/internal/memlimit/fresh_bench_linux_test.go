package memlimit

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkFreshMemory compares two ways to give a fresh instance the
// memory its data segments make, with the shape of murmur's OpenAI driver
// (BENCHMARKS.md, issue 38, session 21): 272 pages, ten of data from page
// 256; a call then writes the stack page below them, reads six data pages,
// writes four and three heap pages above them.
//
//   - copy: what instantiation does today: an anonymous mapping, the
//     pages populated at once (Pool.Prefault), the data copied in;
//   - cow: what wasmtime does: the data pages mapped copy-on-write from a
//     memfd holding them, so a page only read is the page cache's and no
//     copy is made; the other pages populated as in copy.
//
// Each op is one instance's memory, mapped, used and unmapped, run on all
// CPUs at once, as a run's first wave makes them. On this machine cow
// costs more than copy, not less: mapping a file over the region splits
// it, and the faults on a shared file's pages contend between CPUs.
func BenchmarkFreshMemory(b *testing.B) {
	const pages, first, data = 272, 256, 10
	page := unix.Getpagesize()
	image := make([]byte, data*page)
	for i := range image {
		image[i] = byte(i*7 + 1)
	}
	fd, err := unix.MemfdCreate("murmur-eval-bench", unix.MFD_CLOEXEC)
	if err != nil {
		b.Skipf("memfd_create: %v", err)
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(len(image))); err != nil {
		b.Fatal(err)
	}
	if _, err := unix.Pwrite(fd, image, 0); err != nil {
		b.Fatal(err)
	}
	call := func(m []byte) {
		m[(first-1)*page] = 1
		var sum byte
		for p := first; p < first+6; p++ {
			sum += m[p*page+7]
		}
		for p := first + 6; p < first+data+3; p++ {
			m[p*page+9] = sum
		}
	}
	present := func(b *testing.B, m []byte) {
		if err := populate(m); err != nil {
			b.Skipf("MADV_POPULATE_WRITE: %v", err)
		}
	}
	for _, way := range []struct {
		name string
		make func(b *testing.B, m []byte)
	}{
		{"copy", func(b *testing.B, m []byte) {
			present(b, m[(first-1)*page:(first+data+3)*page])
			copy(m[first*page:], image)
		}},
		{"cow", func(b *testing.B, m []byte) {
			at := unsafe.Pointer(&m[first*page])
			if _, err := unix.MmapPtr(fd, 0, at, uintptr(len(image)), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED); err != nil {
				b.Fatal(err)
			}
			present(b, m[(first-1)*page:first*page])
			present(b, m[(first+data)*page:(first+data+3)*page])
		}},
	} {
		b.Run(way.name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					m, ok := reserve(uint64(pages * page))
					if !ok {
						b.Fatal("mmap failed")
					}
					way.make(b, m)
					call(m)
					release(m)
				}
			})
		})
	}
}
