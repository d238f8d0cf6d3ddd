package component

import (
	"context"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/wasi"
)

const (
	i32 = abi.I32
	i64 = abi.I64
)

// hostFunc and iface are the host functions of murmur's interfaces, on a
// call's *state (defined here, so that their literals may be positional).
type (
	hostFunc abi.Func[*state]
	iface    map[string]hostFunc
)

// hostFuncs returns every interface this host implements, WASI's
// (internal/wasi) and murmur's, keyed by the interface name without its
// version, so that all 0.2.x share one implementation and one handle
// table. It is built per call to interfaces, not kept in a global.
func hostFuncs() map[string]iface {
	all := map[string]iface{}
	for name, fns := range wasi.Interfaces() {
		all[name] = make(iface, len(fns))
		for fn, f := range fns {
			all[name][fn] = onHost(f)
		}
	}
	addMurmur(all)
	return all
}

// onHost runs a WASI host function on the call state's Host.
func onHost(f abi.Func[*wasi.Host]) hostFunc {
	return hostFunc{f.Params, f.Results, func(ctx context.Context, s *state, stack []uint64) { f.Fn(ctx, &s.Host, stack) }}
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
			s.hostCalls++
			// Lowered results are allocated with the caller's allocator:
			// the adapter's imports use its cabi_import_realloc.
			s.SelectCaller(m)
			hf.Fn(ctx, s, stack)
		}), hf.Params, hf.Results).Export(name)
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
		abi.Trapf("component host function called outside a component call")
	}
	return s
}
