package drivertest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

func TestSLEB(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, 64, -64, -65, 127, 128, 1 << 20, 1<<31 - 1, -1 << 31, 0x3fffff00} {
		b := sleb(nil, v)
		got, n := readSleb(b)
		if got != v || n != len(b) {
			t.Errorf("sleb(%d) = %x, read back %d (%d bytes)", v, b, got, n)
		}
	}
	// wasm's encoding, not Go's zigzag varint: -1 is 0x7f, 64 is 0xc0 0x00.
	if b := sleb(nil, -1); len(b) != 1 || b[0] != 0x7f {
		t.Errorf("sleb(-1) = %x", b)
	}
	if b := sleb(nil, 64); len(b) != 2 || b[0] != 0xc0 || b[1] != 0 {
		t.Errorf("sleb(64) = %x", b)
	}
}

// module is a core module with the sections addRealloc needs and one
// active data segment at offset 4096 holding data.
func module(data string) []byte {
	sec := func(id byte, body ...byte) []byte { return append(uleb([]byte{id}, uint32(len(body))), body...) }
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, sec(1, 1, 0x60, 0, 0)...)  // one type () -> ()
	m = append(m, sec(2, 0)...)              // no imports
	m = append(m, sec(3, 1, 0)...)           // one function of type 0
	m = append(m, sec(5, 1, 0, 1)...)        // memory min 1
	m = append(m, sec(7, 0)...)              // no exports
	m = append(m, sec(10, 1, 2, 0, 0x0b)...) // its body: no locals, end
	seg := append([]byte{1, 0, 0x41}, sleb(nil, 4096)...)
	seg = append(seg, 0x0b)
	seg = append(uleb(seg, uint32(len(data))), data...)
	return append(m, sec(11, seg...)...)
}

func TestAddRealloc(t *testing.T) {
	out, err := addRealloc(module("xx" + arenaMagic))
	if err != nil {
		t.Fatal(err)
	}
	secs, err := sections(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := vecLen(secs[1]); n != 2 {
		t.Errorf("%d types, want the realloc type added", n)
	}
	if n := vecLen(secs[3]); n != 2 {
		t.Errorf("%d functions, want 2", n)
	}
	if !strings.Contains(string(secs[7]), "cabi_realloc") {
		t.Error("cabi_realloc not exported")
	}
	base, err := findArena(secs)
	if err != nil || base != 4098 {
		t.Errorf("arena at %d (%v), want 4098", base, err)
	}
	// The appended function is valid wasm and bump-allocates from the
	// arena: aligned, past its 32-byte head, one after the other, copying
	// the old block on a realloc.
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	m, err := rt.Instantiate(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	realloc := m.ExportedFunction("cabi_realloc")
	var got []uint64
	for _, args := range [][4]uint64{{0, 0, 8, 16}, {0, 0, 1, 3}, {0, 0, 4, 4}} {
		r, err := realloc.Call(ctx, args[:]...)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r[0])
	}
	if want := []uint64{4136, 4152, 4156}; !slices.Equal(got, want) {
		t.Errorf("allocations at %v, want %v", got, want)
	}
	m.Memory().Write(4136, []byte("0123456789abcdef"))
	r, err := realloc.Call(ctx, 4136, 16, 8, 32)
	if b, _ := m.Memory().Read(uint32(r[0]), 16); err != nil || string(b) != "0123456789abcdef" {
		t.Errorf("realloc copied %q (%v)", b, err)
	}
	if _, err := realloc.Call(ctx, 0, 0, 1, arenaBytes); err == nil {
		t.Error("an allocation past the arena did not trap")
	}
	if _, err := addRealloc(module("no magic here")); err == nil {
		t.Error("a module without the arena was patched")
	}
	if _, err := addRealloc([]byte("not wasm")); err == nil {
		t.Error("not a module, no error")
	}
}
