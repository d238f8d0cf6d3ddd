//go:build !linux

package memlimit

import "errors"

// populate is unavailable where MADV_POPULATE_WRITE does not exist: pages
// fault in as they are touched.
func populate([]byte) error { return errors.ErrUnsupported }
