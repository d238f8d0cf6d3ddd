// Package sessionfs is murmur-eval's one way into a session folder once a
// tool has run in it.
//
// After the first tool call a session folder is hostile: a shell tool (the
// unprivileged tool uid owns its directories) may have replaced any file or
// folder by a symlink (to a host file, dangling, or to out/ or logs/
// themselves), a FIFO, a hard link, a device node, or nested folders deeper
// than PATH_MAX. murmur-eval often runs as root, so every read and write it
// does there goes through this package, which keeps four rules:
//
//   - Beneath the root: names are resolved by file descriptor through an
//     os.Root opened on the session folder. A symlink that resolves inside
//     the folder is followed; one that leads out (absolute, "..", through
//     /proc) is refused. Names must be local (filepath.IsLocal): absolute
//     names and names with a leading ".." are refused up front.
//   - Regular files only, never blocking: reads open with O_NONBLOCK and
//     check the opened file with fstat; a FIFO, device, socket or folder is
//     refused (errcode.SessionFile, naming the relative name), so a FIFO
//     never hangs a run.
//   - Bounded: ReadFile reads at most max bytes and refuses a larger file
//     without allocating from the file's claimed size beyond max.
//   - Fresh writes: WriteFile and Create remove whatever is at the name (a
//     file, a link, a FIFO; a folder with entries is moved aside) and create the
//     file anew with O_CREATE|O_EXCL, which never follows a link. A parent
//     that is not a real folder (a link, a file) is replaced by a fresh
//     folder. OpenAppend reuses an existing log only when it is a regular
//     file murmur-eval owns with one link, and creates it fresh otherwise.
//     A link planted at a name is replaced, never written through. On
//     Linux, WriteFile first tries the whole write as one openat2
//     (O_CREAT|O_EXCL, RESOLVE_NO_SYMLINKS), which the
//     kernel grants only for a fresh name under real folders; anything
//     else falls through to the removal and replacement above.
//
// Size measures a folder for the workdir guard by file descriptor
// (openat/fstatat relative to the parent, never following a link), so no
// path depth hides bytes from it, with a bounded number of open
// descriptors (see size_linux.go).
//
// The errors carry codes from package errcode: SessionFile for a refused
// name, kind or size; IONotFound (wrapping fs.ErrNotExist) for a missing
// file; IO otherwise. A Root is safe for concurrent use, as os.Root is.
package sessionfs
