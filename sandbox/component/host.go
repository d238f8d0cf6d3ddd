package component

import (
	"context"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

const (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

// hostFunc is one core-level host function: the lowered form of a WIT
// function, with the flat signature wit-bindgen gives the main module.
type hostFunc struct {
	params, results []api.ValueType
	fn              func(ctx context.Context, s *state, stack []uint64)
}

// iface is the functions of one interface, keyed by their core import name
// ("[method]output-stream.write", "get-stdout").
type iface map[string]hostFunc

// hostFuncs returns every interface this host implements, keyed by the
// interface name without its version, so that all 0.2.x share one
// implementation and one handle table. It is built per call to
// interfaces, not kept in a global.
func hostFuncs() map[string]iface {
	all := map[string]iface{}
	for _, add := range []func(map[string]iface){addCLI, addIO, addClocks, addFS, addHTTP, addMurmur} {
		add(all)
	}
	return all
}

// unversioned strips "@version" from an interface name.
func unversioned(name string) string {
	if i := strings.LastIndexByte(name, '@'); i >= 0 {
		return name[:i]
	}
	return name
}

// registerHost makes sure rt has a host module named moduleName (an
// interface name as the main module imports it, version included) with
// every function of that interface. Concurrent Compiles may race to
// register the same name; the loser finds the winner's module.
func registerHost(ctx context.Context, rt wazero.Runtime, moduleName string, fns iface) error {
	if rt.Module(moduleName) != nil {
		return nil
	}
	b := rt.NewHostModuleBuilder(moduleName)
	for name, hf := range fns {
		hf := hf
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, stack []uint64) {
			s := stateOf(ctx)
			// Lowered results are allocated with the caller's allocator:
			// the adapter's imports use its cabi_import_realloc.
			if s.adapter != nil && m == s.adapter {
				s.realloc = s.importRealloc
			} else {
				s.realloc = s.mainRealloc
			}
			hf.fn(ctx, s, stack)
		}), hf.params, hf.results).Export(name)
	}
	if _, err := b.Instantiate(ctx); err != nil && rt.Module(moduleName) == nil {
		return err
	}
	return nil
}

type stateKey struct{}

// stateOf returns the per-call state RunTool put in the context.
func stateOf(ctx context.Context) *state {
	s, _ := ctx.Value(stateKey{}).(*state)
	if s == nil {
		trapf("component host function called outside a component call")
	}
	return s
}

func sig(p ...api.ValueType) []api.ValueType { return p }

func sameSig(a, b []api.ValueType) bool {
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
