package abi

import (
	"context"
	"unicode/utf8"

	"github.com/tetratelabs/wazero/api"
)

// Frame is one call's view of a guest instance: its memory, the allocator
// of the host call's caller and the resource table. Every memory access is
// bounds-checked; a bad pointer is a trap, never a host panic of another
// kind. A Frame belongs to one call: it is used on the guest's goroutine
// only.
type Frame struct {
	Mem api.Memory
	// Realloc is the allocator for the current host call's caller
	// (SelectCaller).
	Realloc api.Function
	// MainRealloc is the main module's cabi_realloc; ImportRealloc the
	// preview-1 adapter's cabi_import_realloc, which wit-component gives
	// the adapter's own imports.
	MainRealloc, ImportRealloc api.Function
	// Adapter is the preview-1 adapter's instance, nil without one.
	Adapter api.Module
	// H is the instance's resource table.
	H Handles
}

// SetMain records the main instance's memory and allocator.
func (f *Frame) SetMain(m api.Module) {
	f.Mem = m.ExportedMemory("memory")
	f.MainRealloc = m.ExportedFunction("cabi_realloc")
	f.Realloc = f.MainRealloc
}

// SelectCaller chooses the allocator for a host call made by module m:
// the adapter's imports lower their results with its cabi_import_realloc.
func (f *Frame) SelectCaller(m api.Module) {
	if f.Adapter != nil && m == f.Adapter {
		f.Realloc = f.ImportRealloc
	} else {
		f.Realloc = f.MainRealloc
	}
}

// Read returns n bytes at ptr (a view of guest memory).
func (f *Frame) Read(ptr, n uint32) []byte {
	b, ok := f.Mem.Read(ptr, n)
	if !ok {
		Trapf("pointer %#x+%d out of bounds of linear memory (%d bytes)", ptr, n, f.Mem.Size())
	}
	return b
}

// Str returns the UTF-8 string of n bytes at ptr.
func (f *Frame) Str(ptr, n uint32) string {
	b := f.Read(ptr, n)
	if !utf8.Valid(b) {
		Trapf("string at %#x is not valid UTF-8", ptr)
	}
	return string(b)
}

// Write copies b to ptr.
func (f *Frame) Write(ptr uint32, b []byte) {
	if !f.Mem.Write(ptr, b) {
		Trapf("pointer %#x+%d out of bounds of linear memory (%d bytes)", ptr, len(b), f.Mem.Size())
	}
}

// U8 stores v at ptr.
func (f *Frame) U8(ptr uint32, v byte) {
	if !f.Mem.WriteByte(ptr, v) {
		Trapf("pointer %#x out of bounds of linear memory", ptr)
	}
}

// U32 stores v little-endian at ptr.
func (f *Frame) U32(ptr, v uint32) {
	if !f.Mem.WriteUint32Le(ptr, v) {
		Trapf("pointer %#x out of bounds of linear memory", ptr)
	}
}

// U64 stores v little-endian at ptr.
func (f *Frame) U64(ptr uint32, v uint64) {
	if !f.Mem.WriteUint64Le(ptr, v) {
		Trapf("pointer %#x out of bounds of linear memory", ptr)
	}
}

// Alloc asks the guest's cabi_realloc for size bytes and checks what it
// returns: a misbehaving allocator (misaligned or out-of-bounds pointer) is
// a trap.
func (f *Frame) Alloc(ctx context.Context, align, size uint32) uint32 {
	if f.Realloc == nil {
		Trapf("component has no cabi_realloc")
	}
	res, err := f.Realloc.Call(ctx, 0, 0, uint64(align), uint64(size))
	if err != nil {
		// A trap, whether in a host function (wazero makes it the call's
		// error) or in host-side lowering before a call (Guard makes it
		// the call's error): never a panic of the host.
		Trapf("cabi_realloc failed: %v", err)
	}
	p := uint32(res[0])
	if p%align != 0 {
		Trapf("cabi_realloc returned misaligned pointer %#x (alignment %d)", p, align)
	}
	if uint64(p)+uint64(size) > uint64(f.Mem.Size()) {
		Trapf("cabi_realloc returned pointer %#x+%d out of bounds of linear memory (%d bytes)", p, size, f.Mem.Size())
	}
	return p
}

// PutString copies v into guest memory and returns its pointer and length.
func (f *Frame) PutString(ctx context.Context, v string) (uint32, uint32) {
	if v == "" {
		return 1, 0
	}
	p := f.Alloc(ctx, 1, uint32(len(v)))
	f.Write(p, []byte(v))
	return p, uint32(len(v))
}

// PutBytes is PutString for list<u8>.
func (f *Frame) PutBytes(ctx context.Context, v []byte) (uint32, uint32) {
	if len(v) == 0 {
		return 1, 0
	}
	p := f.Alloc(ctx, 1, uint32(len(v)))
	f.Write(p, v)
	return p, uint32(len(v))
}

// LowerOption flattens an option<string> into (disc, ptr, len), copying
// the string into guest memory through cabi_realloc.
func (f *Frame) LowerOption(ctx context.Context, v *string) (uint64, uint64, uint64) {
	if v == nil {
		return 0, 0, 0
	}
	p, n := f.PutString(ctx, *v)
	return 1, uint64(p), uint64(n)
}

// LiftOptionArg lifts a flattened option<string> parameter. Each is an
// i32: only the low 32 bits of the stack slot are the value (wazero may
// leave others above them).
func (f *Frame) LiftOptionArg(disc, ptr, n uint64) *string {
	switch uint32(disc) {
	case 0:
		return nil
	case 1:
		v := f.Str(uint32(ptr), uint32(n))
		return &v
	}
	Trapf("option tag %d is not 0 or 1", uint32(disc))
	return nil
}
