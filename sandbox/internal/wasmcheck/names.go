package wasmcheck

// checkCustom checks a custom section's name and, for the name section,
// its maps, which wazero sizes by their declared counts. wazero reads no
// other custom section's contents by a count: it copies or skips them
// whole, by the section's size, which Check has bounded already.
func checkCustom(s *reader) {
	n := s.u32()
	if s.err != nil {
		return
	}
	if uint64(n) > uint64(s.left()) {
		s.fail("custom section declares a %d-byte name in %d bytes", n, len(s.b))
		return
	}
	name := s.b[s.off : s.off+int(n)]
	s.off += int(n)
	if string(name) == "name" {
		checkNames(s)
	}
}

// checkNames walks the name section's subsections. wazero reads each
// known one from where the last ended, not from where its size says it
// starts, so each must end exactly where its size says, or wazero would
// read other bytes than these as counts.
func checkNames(s *reader) {
	for s.left() > 0 && s.err == nil {
		id := s.byte()
		sub := s.sub(s.u32(), "name section: a subsection")
		if s.err != nil {
			return
		}
		switch id {
		case 0:
			sub.name("name section: the module name")
		case 1:
			nameMap(&sub, "name section: function names")
		case 2:
			n := sub.vec("name section: local names", "functions", 2, 0)
			for i := uint32(0); i < n && sub.err == nil; i++ {
				sub.u32()
				nameMap(&sub, "name section: local names of a function")
			}
		default:
			continue // skipped whole by wazero
		}
		if sub.err == nil && sub.left() != 0 {
			sub.fail("name section: subsection %d ends %d bytes before its size", id, sub.left())
		}
		s.err = sub.err
	}
}

// nameMap checks a vector of (index, name) pairs, two bytes at least each.
func nameMap(r *reader, what string) {
	n := r.vec(what, "names", 2, 0)
	for i := uint32(0); i < n && r.err == nil; i++ {
		r.u32()
		r.name(what)
	}
}
