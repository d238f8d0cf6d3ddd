package binary

// section is one section of a core module: its id, where it starts (its
// id byte) and ends, and its body.
type section struct {
	id         byte
	start, end int
	body       []byte
	bodyOff    int
}

// sectionRank is a non-custom section's place in the order the core format
// requires (the tag section, 13, sits between memory and global).
func sectionRank(id byte) (int, bool) {
	rank := [...]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}
	if int(id) >= len(rank) || rank[id] == 0 {
		return 0, false
	}
	return rank[id], true
}

// coreSections splits a core module into its sections, refusing a bad
// header, a section running past the end, and known sections out of order
// or repeated.
func coreSections(mod []byte) ([]section, error) {
	if len(mod) < 8 || string(mod[:8]) != "\x00asm\x01\x00\x00\x00" {
		return nil, Malformed(0, "core module has a bad header (not a version 1 core module)")
	}
	r := &reader{b: mod, off: 8}
	var secs []section
	last := 0
	for !r.eof() {
		s := section{start: r.off}
		s.id = r.byte()
		size := r.u32()
		s.bodyOff = r.off
		s.body = r.bytes(size)
		s.end = r.off
		if r.err != nil {
			return nil, r.err
		}
		if rank, ok := sectionRank(s.id); ok {
			if rank <= last {
				return nil, Malformed(s.start, "section %d is out of order or repeated", s.id)
			}
			last = rank
		}
		secs = append(secs, s)
	}
	return secs, r.err
}
