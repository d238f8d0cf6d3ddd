package abi

import (
	"context"
	"math"

	"github.com/tetratelabs/wazero/api"
)

// Kind is a WIT value type the host lowers into a guest: the types of
// murmur's lifecycle event records.
type Kind int

// The kinds.
const (
	String    Kind = iota // string
	U32                   // u32
	U64                   // u64
	S32                   // s32
	F64                   // f64
	OptString             // option<string>
	Strings               // list<string>
	Pairs                 // list<record{string, string}> (murmur's message)
)

// Flat is the kind's flattened core types.
func (k Kind) Flat() []api.ValueType {
	switch k {
	case U32, S32:
		return Sig(I32)
	case U64:
		return Sig(I64)
	case F64:
		return Sig(api.ValueTypeF64)
	case OptString:
		return Sig(I32, I32, I32)
	}
	return Sig(I32, I32) // string, lists
}

// Layout is the kind's canonical-ABI alignment and size in memory.
func (k Kind) Layout() (align, size uint32) {
	switch k {
	case U32, S32:
		return 4, 4
	case U64, F64:
		return 8, 8
	case OptString:
		return 4, 12
	}
	return 4, 8
}

// Value is one value of a Kind, to lower.
type Value struct {
	Kind  Kind
	S     string      // String
	N     uint64      // U32, U64, and S32 as its u32 bits
	F     float64     // F64
	Opt   *string     // OptString; nil is none
	Strs  []string    // Strings
	Pairs [][2]string // Pairs
}

// MaxFlatParams is the canonical ABI's limit: a function whose flattened
// parameters are more is passed one pointer to them in memory.
const MaxFlatParams = 16

// FlatParams is the core parameters of a function taking kinds: flattened,
// or one pointer past MaxFlatParams.
func FlatParams(kinds []Kind) []api.ValueType {
	var flat []api.ValueType
	for _, k := range kinds {
		flat = append(flat, k.Flat()...)
	}
	if len(flat) > MaxFlatParams {
		return Sig(I32)
	}
	return flat
}

// LowerParams lowers vals, a function's parameters, into its core
// parameters: flattened, or (past MaxFlatParams) stored as a record in
// memory the guest's cabi_realloc gives and passed as one pointer.
func (f *Frame) LowerParams(ctx context.Context, vals []Value) []uint64 {
	nflat := 0
	for _, v := range vals {
		nflat += len(v.Kind.Flat())
	}
	if nflat > MaxFlatParams {
		var align, size uint32 = 1, 0
		offs := make([]uint32, len(vals))
		for i, v := range vals {
			a, n := v.Kind.Layout()
			align = max(align, a)
			size = (size + a - 1) &^ (a - 1)
			offs[i] = size
			size += n
		}
		size = (size + align - 1) &^ (align - 1)
		p := f.Alloc(ctx, align, size)
		for i, v := range vals {
			f.StoreValue(ctx, p+offs[i], v)
		}
		return []uint64{uint64(p)}
	}
	var flat []uint64
	for _, v := range vals {
		flat = append(flat, f.FlatValue(ctx, v)...)
	}
	return flat
}

// FlatValue lowers v to its flat core values.
func (f *Frame) FlatValue(ctx context.Context, v Value) []uint64 {
	switch v.Kind {
	case U32, S32, U64:
		return []uint64{v.N}
	case F64:
		return []uint64{api.EncodeF64(CanonNaN(v.F))}
	case OptString:
		a, b, c := f.LowerOption(ctx, v.Opt)
		return []uint64{a, b, c}
	case String:
		p, n := f.PutString(ctx, v.S)
		return []uint64{uint64(p), uint64(n)}
	case Strings:
		p, n := f.PutStrings(ctx, v.Strs)
		return []uint64{uint64(p), uint64(n)}
	}
	p, n := f.PutPairs(ctx, v.Pairs)
	return []uint64{uint64(p), uint64(n)}
}

// StoreValue stores v at ptr in guest memory.
func (f *Frame) StoreValue(ctx context.Context, ptr uint32, v Value) {
	switch v.Kind {
	case U32, S32:
		f.U32(ptr, uint32(v.N))
	case U64:
		f.U64(ptr, v.N)
	case F64:
		f.U64(ptr, math.Float64bits(CanonNaN(v.F)))
	case OptString:
		d, p, n := f.LowerOption(ctx, v.Opt)
		f.U8(ptr, byte(d))
		f.U32(ptr+4, uint32(p))
		f.U32(ptr+8, uint32(n))
	default:
		flat := f.FlatValue(ctx, v)
		f.U32(ptr, uint32(flat[0]))
		f.U32(ptr+4, uint32(flat[1]))
	}
}

// CanonNaN is the canonical ABI's one NaN for any NaN, f otherwise.
func CanonNaN(f float64) float64 {
	if math.IsNaN(f) {
		return math.Float64frombits(0x7ff8000000000000)
	}
	return f
}

// PutStrings lowers a list<string>.
func (f *Frame) PutStrings(ctx context.Context, v []string) (uint32, uint32) {
	if len(v) == 0 {
		return 4, 0
	}
	lp := f.Alloc(ctx, 4, uint32(8*len(v)))
	for i, e := range v {
		p, n := f.PutString(ctx, e)
		f.U32(lp+8*uint32(i), p)
		f.U32(lp+8*uint32(i)+4, n)
	}
	return lp, uint32(len(v))
}

// PutPairs lowers a list of records of two strings (16 bytes each).
func (f *Frame) PutPairs(ctx context.Context, v [][2]string) (uint32, uint32) {
	if len(v) == 0 {
		return 4, 0
	}
	lp := f.Alloc(ctx, 4, uint32(16*len(v)))
	for i, kv := range v {
		e := lp + 16*uint32(i)
		p, n := f.PutString(ctx, kv[0])
		f.U32(e, p)
		f.U32(e+4, n)
		p, n = f.PutString(ctx, kv[1])
		f.U32(e+8, p)
		f.U32(e+12, n)
	}
	return lp, uint32(len(v))
}
