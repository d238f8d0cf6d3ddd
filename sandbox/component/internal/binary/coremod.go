package binary

// CoreImportModules returns the module names a core module imports from,
// reading only its import section (id 2). The module itself is validated
// by wazero when it is the main module; the shim and fixup never run.
func CoreImportModules(mod []byte) ([]string, error) {
	if len(mod) < 8 || string(mod[:4]) != "\x00asm" || mod[4] != 1 {
		return nil, Malformed(0, "embedded core module has a bad header")
	}
	r := &reader{b: mod, off: 8}
	for !r.eof() {
		id := r.byte()
		size := r.u32()
		body := r.bytes(size)
		if r.err != nil {
			return nil, r.err
		}
		if id != 2 {
			continue
		}
		sr := &reader{b: body}
		var names []string
		for n := sr.count(3); n > 0 && sr.err == nil; n-- {
			names = append(names, sr.name())
			sr.name()
			coreImportDesc(sr)
		}
		return names, sr.err
	}
	return nil, r.err
}
