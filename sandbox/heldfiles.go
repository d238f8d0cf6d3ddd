package sandbox

// Held is the disk held by deleted files that a running call's processes
// still have open or mapped: no name leads to them, so the walk of the
// session folder cannot count them, yet their blocks stay allocated until
// the last descriptor or mapping goes. Bytes are allocated blocks
// (st_blocks*512), Files the distinct files (device and inode).
type Held struct {
	Bytes uint64
	Files uint64
}
