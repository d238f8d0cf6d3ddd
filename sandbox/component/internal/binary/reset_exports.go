package binary

// addExports returns a copy of mod with an export of each global in
// p.mutable, named names, appended to its export section (or a new one in
// its place in the section order).
func addExports(mod []byte, secs []section, p *prep, names []string) []byte {
	items := append([]byte(nil), p.exportItems...)
	for i, g := range p.mutable {
		items = appendULEB(items, uint64(len(names[i])))
		items = append(items, names[i]...)
		items = append(items, 0x03)
		items = appendULEB(items, uint64(g))
	}
	body := appendULEB(nil, uint64(p.exportCount)+uint64(len(names)))
	body = append(body, items...)
	sec := appendULEB([]byte{7}, uint64(len(body)))
	sec = append(sec, body...)

	from, to := 8, 8 // the bytes the new section replaces
	if p.exportSec != nil {
		from, to = p.exportSec.start, p.exportSec.end
	} else {
		exportRank, _ := sectionRank(7)
		for _, s := range secs {
			if rank, ok := sectionRank(s.id); ok && rank < exportRank {
				from, to = s.end, s.end
			}
		}
	}
	out := make([]byte, 0, len(mod)-(to-from)+len(sec))
	out = append(out, mod[:from]...)
	out = append(out, sec...)
	return append(out, mod[to:]...)
}

func appendULEB(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
