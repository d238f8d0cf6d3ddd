package abi

import (
	"context"

	"github.com/tetratelabs/wazero/api"
)

// The core value types of flat signatures.
const (
	I32 = api.ValueTypeI32
	I64 = api.ValueTypeI64
)

// Func is one core-level host function: the lowered form of a WIT
// function, with the flat signature wit-bindgen gives the main module. S
// is the per-call state the layer that defines it works on.
type Func[S any] struct {
	Params, Results []api.ValueType
	Fn              func(ctx context.Context, s S, stack []uint64)
}

// Iface is the functions of one interface, keyed by their core import
// name ("[method]output-stream.write", "get-stdout").
type Iface[S any] map[string]Func[S]

// Sig is a flat signature's value types.
func Sig(p ...api.ValueType) []api.ValueType { return p }

// SameSig reports whether two flat signatures are the same.
func SameSig(a, b []api.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
