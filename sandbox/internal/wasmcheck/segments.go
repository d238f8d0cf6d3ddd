package wasmcheck

func checkElements(s *reader) {
	n := s.vec("element section", "segments", 1, maxElements)
	for i := uint32(0); i < n && s.err == nil; i++ {
		flag := s.u32()
		if flag > 7 && s.err == nil {
			s.fail("element section: segment %d has flag %d", i, flag)
			return
		}
		if flag == 2 || flag == 6 {
			s.u32() // table index
		}
		if flag&1 == 0 { // active: an offset
			constExpr(s, "element section")
		}
		switch flag {
		case 1, 2, 3:
			s.byte() // element kind
		case 5, 6, 7:
			valType(s) // reference type
		}
		m := s.vec("element section: segment", "elements", 1, 0)
		for j := uint32(0); j < m && s.err == nil; j++ {
			if flag&4 != 0 {
				constExpr(s, "element section")
			} else {
				s.u32()
			}
		}
	}
}

// checkData returns the number of segments the data section declares.
func checkData(s *reader) uint32 {
	n := s.vec("data section", "segments", 1, maxData)
	for i := uint32(0); i < n && s.err == nil; i++ {
		switch flag := s.u32(); flag {
		case 0:
			constExpr(s, "data section")
		case 1: // passive
		case 2:
			s.u32() // memory index
			constExpr(s, "data section")
		default:
			if s.err == nil {
				s.fail("data section: segment %d has flag %d", i, flag)
			}
		}
		s.skip(s.u32(), "data section: a segment")
	}
	return n
}

// checkCode checks each body's size and its local declarations: wazero
// sizes a function's locals by their declared total before reading the
// body, so 6 bytes declaring 2^32-1 locals ask for 4 GB.
func checkCode(s *reader) {
	n := s.vec("code section", "bodies", 1, maxFunctions)
	for i := uint32(0); i < n && s.err == nil; i++ {
		body := s.sub(s.u32(), "code section: a body")
		if s.err != nil {
			return
		}
		checkLocals(&body, i)
		s.err = body.err
	}
}

// checkLocals checks the local declarations opening body i: (count, type)
// pairs of at least two bytes each.
func checkLocals(body *reader, i uint32) {
	m := body.u32()
	if body.err == nil && uint64(m)*2 > uint64(body.left()) {
		body.fail("code section: body %d declares %d local declarations in %d bytes", i, m, len(body.b))
		return
	}
	var total uint64
	for j := uint32(0); j < m && body.err == nil; j++ {
		total += uint64(body.u32())
		valType(body)
	}
	if body.err == nil && total > maxLocals {
		body.failLimit("code section: body %d declares %d locals; at most %d are allowed", i, total, maxLocals)
	}
}
