package component

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/binary"
	"github.com/murmur-nexus/murmur-eval/sandbox/internal/wasmcheck"
)

// The preview-1 adapter shape (cargo component, jco new --wasi-reactor):
// the main module imports wasi_snapshot_preview1, and wit-component's
// adapter module implements it on top of WASI 0.2, using the main module's
// memory ("env") and allocator ("__main_module__"). Per call the host
// instantiates the main module, then the adapter against it, and forwards
// the main module's preview-1 imports to that adapter instance.

const adapterName = binary.AdapterModule

// compileAdapter compiles the adapter, links its WASI 0.2 imports, checks
// that it provides every preview-1 function the main module imports with
// the same signature, and registers the forwarding host module the main
// module's wasi_snapshot_preview1 imports resolve to. It returns the
// compiled adapter and the forwarding module's name.
func compileAdapter(ctx context.Context, rt wazero.Runtime, bin []byte, main wazero.CompiledModule, w World, maxTable uint32) (wazero.CompiledModule, string, error) {
	bin, err := wasmcheck.Prepare(bin, maxTable) // before wazero sizes anything by its counts; tables capped
	if err != nil {
		return nil, "", errcode.Wrap(errcode.RunCapsule, err, "component preview-1 adapter module")
	}
	cm, err := rt.CompileModule(ctx, bin)
	if err != nil {
		return nil, "", unsupported("the preview-1 adapter does not compile: %v", err)
	}
	if err := linkImports(ctx, rt, cm, w, "env", "__main_module__"); err != nil {
		return nil, "", err
	}
	exports := cm.ExportedFunctions()
	sum := sha256.Sum256(bin)
	name := "murmur-eval:adapter@" + hex.EncodeToString(sum[:8])
	fns := iface{}
	for _, f := range main.ImportedFunctions() {
		mod, fn, _ := f.Import()
		if mod != adapterName {
			continue
		}
		// wit-component names a function the main module imports twice
		// (Go's runtime and syscall both import fd_write) "fd_write [v2]":
		// both are the adapter's fd_write.
		target, _, _ := strings.Cut(fn, " [v")
		e := exports[target]
		if e == nil || !abi.SameSig(e.ParamTypes(), f.ParamTypes()) || !abi.SameSig(e.ResultTypes(), f.ResultTypes()) {
			return nil, "", unsupported("the main module imports %s.%s, which the adapter does not export with that signature", mod, fn)
		}
		fns[fn] = hostFunc{e.ParamTypes(), e.ResultTypes(), func(ctx context.Context, s *state, stack []uint64) {
			f := s.Adapter.ExportedFunction(target)
			if err := f.CallWithStack(ctx, stack); err != nil {
				panic(err)
			}
		}}
	}
	if err := registerHost(ctx, rt, name, fns); err != nil {
		return nil, "", err
	}
	return cm, name, nil
}

// instantiateWithAdapter instantiates the main module with its
// preview-1 imports resolved to the forwarding module, then the adapter
// with "env" and "__main_module__" resolved to that main instance, then
// runs the main module's _initialize. The main instance is in.m as soon
// as it exists, so in.close closes it even if the adapter's instantiation
// panics (memlimit.Allocator.Instantiate recovers a refused initial memory).
func (c *Component) instantiateWithAdapter(ctx context.Context, s *state, in *instance) error {
	fwd := rawModule(c.rt.Module(c.forward))
	mctx := experimental.WithImportResolver(ctx, func(name string) api.Module {
		if name == adapterName {
			return fwd
		}
		return nil
	})
	m, err := c.rt.InstantiateModule(mctx, c.main, c.cfg.WithStartFunctions())
	in.m = m
	if err != nil {
		return err
	}
	s.SetMain(m)
	actx := experimental.WithImportResolver(ctx, func(name string) api.Module {
		if name == "env" || name == "__main_module__" {
			return m
		}
		return nil
	})
	a, err := c.rt.InstantiateModule(actx, c.adapter, c.cfg.WithStartFunctions())
	if err != nil {
		return err
	}
	s.Adapter = a
	s.ImportRealloc = a.ExportedFunction("cabi_import_realloc")
	if init := m.ExportedFunction("_initialize"); init != nil {
		if _, err := init.Call(ctx); err != nil {
			return err
		}
	}
	return nil
}

// rawModule unwraps the api.Module that wazero's Runtime.Module returns for
// a host module: its import resolver accepts only the instance itself.
// wazero wraps it in a struct embedding api.Module (builder.go,
// hostModuleInstance); the embedded field is exported, so reflection may
// read it. The adapter test fails if a wazero upgrade changes this.
func rawModule(m api.Module) api.Module {
	v := reflect.ValueOf(m)
	if v.Kind() == reflect.Struct && v.NumField() == 1 && v.Type().Field(0).Anonymous {
		if inner, ok := v.Field(0).Interface().(api.Module); ok {
			return inner
		}
	}
	return m
}
