//go:build unix

package workspace

import "syscall"

// oNoFollowNonblock opens a file of a workspace folder without following a
// link or blocking on a FIFO.
const oNoFollowNonblock = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
