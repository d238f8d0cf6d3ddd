package component

// handles is one instance's resource table: streams, pollables, errors,
// descriptors and directory streams of every 0.2.x version share it, so a
// handle made through wasi:io@0.2.0 works through wasi:io@0.2.12. Index 0
// is never handed out, as in the canonical ABI.
type handles struct {
	items []any
	free  []uint32
}

func (h *handles) add(v any) uint32 {
	if n := len(h.free); n > 0 {
		i := h.free[n-1]
		h.free = h.free[:n-1]
		h.items[i] = v
		return i
	}
	if len(h.items) == 0 {
		h.items = append(h.items, nil)
	}
	h.items = append(h.items, v)
	return uint32(len(h.items) - 1)
}

func (h *handles) lookup(i uint32) any {
	if i == 0 || int(i) >= len(h.items) || h.items[i] == nil {
		trapf("unknown handle %d", i)
	}
	return h.items[i]
}

func (h *handles) drop(i uint32) any {
	v := h.lookup(i)
	h.items[i] = nil
	h.free = append(h.free, i)
	return v
}

// get returns handle i as a T, trapping if it is not one.
func get[T any](h *handles, i uint32, what string) T {
	v, ok := h.lookup(i).(T)
	if !ok {
		trapf("handle %d is not a %s", i, what)
	}
	return v
}

// dropAs drops handle i, trapping if it is not a T.
func dropAs[T any](h *handles, i uint32, what string) T {
	v := get[T](h, i, what)
	h.drop(i)
	if c, ok := any(v).(interface{ close() }); ok {
		c.close()
	}
	return v
}
