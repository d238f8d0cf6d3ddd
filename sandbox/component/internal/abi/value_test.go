package abi

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abitest"
)

// memFrame is a Frame on one page of a real linear memory, its allocator
// bumping from 1024.
func memFrame(t *testing.T) (*Frame, []byte) {
	mem, b := abitest.Memory(t)
	return &Frame{Mem: mem, Realloc: &abitest.Bump{Next: 1024}}, b
}

// TestLowerParams: up to 16 flat values are passed flat (an f64's NaN
// canonical, an s32 as its bits); past 16, the record is stored in guest
// memory with each field at its aligned offset and one pointer is passed.
func TestLowerParams(t *testing.T) {
	f, m := memFrame(t)
	ctx := context.Background()
	flat := f.LowerParams(ctx, []Value{{Kind: U32, N: 7}, {Kind: F64, F: math.NaN()}, {Kind: String, S: "hi"}})
	if len(flat) != 4 || flat[0] != 7 || flat[1] != 0x7ff8000000000000 || flat[3] != 2 || string(m[flat[2]:flat[2]+2]) != "hi" {
		t.Fatalf("flat params %v", flat)
	}
	opt := "o"
	// 3 (option) + 8 x 2 (strings) = 19 flat values: passed in memory.
	vals := []Value{{Kind: OptString, Opt: &opt}, {Kind: U64, N: 1 << 40}}
	for i := 0; i < 8; i++ {
		vals = append(vals, Value{Kind: Pairs, Pairs: [][2]string{{"r", "c"}}})
	}
	if n := len(FlatParams([]Kind{OptString, U64, Pairs, Pairs, Pairs, Pairs, Pairs, Pairs, Pairs, Pairs})); n != 1 {
		t.Fatalf("FlatParams past the limit: %d values, want one pointer", n)
	}
	got := f.LowerParams(ctx, vals)
	if len(got) != 1 {
		t.Fatalf("got %d params, want one pointer", len(got))
	}
	p := uint32(got[0])
	le32 := func(at uint32) uint32 { return binary.LittleEndian.Uint32(m[at:]) }
	if p%8 != 0 || m[p] != 1 || string(m[le32(p+4):le32(p+4)+1]) != "o" ||
		binary.LittleEndian.Uint64(m[p+16:]) != 1<<40 || le32(p+28) != 1 {
		t.Errorf("record at %#x: % x", p, m[p:p+32])
	}
	list := le32(p + 24)
	if r, c := le32(list), le32(list+8); string(m[r]) != "r" || string(m[c]) != "c" {
		t.Errorf("pair lowered as % x", m[list:list+16])
	}
	back, err := LiftPairs(mem(m), m[p+24:])
	if err != nil || len(back) != 1 || back[0] != [2]string{"r", "c"} {
		t.Errorf("LiftPairs = %v, %v", back, err)
	}
}
