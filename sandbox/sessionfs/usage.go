package sessionfs

// Usage is what one walk of a session folder found: Bytes as Size counts
// them, and Entries, every name below the folder (files, folders, links
// and any other kind, a hard link once per name).
type Usage struct {
	Bytes   uint64
	Entries uint64
}
