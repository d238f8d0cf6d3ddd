//go:build !unix

package sessionfs

import "io/fs"

// oNonblock is 0 where the OS has no FIFOs to block on.
const oNonblock = 0

// ownedOnce cannot read owners and link counts here (no tool uid exists
// on these systems): a regular file is reused.
func ownedOnce(fs.FileInfo) bool { return true }
