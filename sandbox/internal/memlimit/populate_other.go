//go:build !linux

package memlimit

// populate is a no-op where MADV_POPULATE_WRITE does not exist: pages
// fault in as they are touched.
func populate([]byte) {}
