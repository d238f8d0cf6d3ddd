//go:build !unix

package trace

import "os"

// openAppend opens path for appending, creating it.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}
