//go:build !unix

package wasi

import "io/fs"

// statIdentity has no link count, device or inode off Unix: callers fall
// back on one link and a hash of the name and metadata.
func statIdentity(fs.FileInfo) (nlink, dev, ino uint64, ok bool) { return 0, 0, 0, false }
