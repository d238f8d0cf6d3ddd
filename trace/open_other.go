//go:build !unix

package trace

import "os"

// openAppend opens path for appending, creating it, readable too (Close
// may copy the file back to its name, reclaim.go).
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
}
