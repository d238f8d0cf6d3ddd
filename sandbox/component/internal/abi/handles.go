package abi

// Handles is one instance's resource table: streams, pollables, errors,
// descriptors and directory streams of every 0.2.x version share it, so a
// handle made through wasi:io@0.2.0 works through wasi:io@0.2.12. Index 0
// is never handed out, as in the canonical ABI. A resource that holds
// something implements Closer.
type Handles struct {
	items []any
	free  []uint32
}

// Closer is a resource that releases what it holds when its handle is
// dropped or its instance ends.
type Closer interface{ Close() }

// Add stores v and returns its handle.
func (h *Handles) Add(v any) uint32 {
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

// Lookup returns handle i's resource, trapping on an unknown handle.
func (h *Handles) Lookup(i uint32) any {
	if i == 0 || int(i) >= len(h.items) || h.items[i] == nil {
		Trapf("unknown handle %d", i)
	}
	return h.items[i]
}

// Drop frees handle i and returns its resource (not closed).
func (h *Handles) Drop(i uint32) any {
	v := h.Lookup(i)
	h.items[i] = nil
	h.free = append(h.free, i)
	return v
}

// CloseAll closes every resource still in the table (the instance ended).
func (h *Handles) CloseAll() {
	for _, v := range h.items {
		if c, ok := v.(Closer); ok {
			c.Close()
		}
	}
}

// Get returns handle i as a T, trapping if it is not one.
func Get[T any](h *Handles, i uint32, what string) T {
	v, ok := h.Lookup(i).(T)
	if !ok {
		Trapf("handle %d is not a %s", i, what)
	}
	return v
}

// DropAs drops handle i, trapping if it is not a T, and closes it.
func DropAs[T any](h *Handles, i uint32, what string) T {
	v := Get[T](h, i, what)
	h.Drop(i)
	if c, ok := any(v).(Closer); ok {
		c.Close()
	}
	return v
}
