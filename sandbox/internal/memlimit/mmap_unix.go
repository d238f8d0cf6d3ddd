//go:build linux || darwin

package memlimit

import "golang.org/x/sys/unix"

// reserve maps n bytes of anonymous, private, zero-filled memory that
// commits nothing until touched (MAP_NORESERVE): pages the guest never
// touches are never resident, and none has to be zeroed by murmur-eval.
// ok is false when the mapping could not be made; the caller then falls
// back to the Go heap.
func reserve(n uint64) (region []byte, ok bool) {
	if n == 0 || n > uint64(int(^uint(0)>>1)) {
		return nil, false
	}
	b, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		return nil, false
	}
	return b, true
}

// release unmaps a region reserve made. Nothing may touch it afterwards:
// wazero calls Free when the instance is closed, after its last call.
func release(region []byte) { _ = unix.Munmap(region) }
