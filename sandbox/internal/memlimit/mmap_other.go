//go:build !linux && !darwin

package memlimit

// reserve is unavailable here: linear memories live on the Go heap.
func reserve(uint64) ([]byte, bool) { return nil, false }

func release([]byte) {}
