package workspace

// oNoFollowNonblock: Windows has no such open flags; the file's type is
// still checked after the open.
const oNoFollowNonblock = 0
