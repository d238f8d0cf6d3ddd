package sandbox

import (
	"context"
	"runtime"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/internal/wasmcheck"
)

const (
	wasiModule = "wasi_snapshot_preview1"
	wasmMagic  = "\x00asm" // opens every WebAssembly binary, core module or component
	// rebuildHint tells a tool author how to produce what we can run.
	rebuildHint = "rebuild the tool as a WASI preview 1 core module " +
		"(GOOS=wasip1 GOARCH=wasm go build, or cargo build --target wasm32-wasip1), not a component"
)

// Module is a tool compiled once for a run. It is immutable and safe for
// concurrent use: any number of goroutines may pass it to Engine.Run at once,
// each call getting its own instance. It lives until its Engine is closed.
type Module struct {
	name     string
	compiled wazero.CompiledModule
}

// Name returns the tool name the module was compiled under.
func (m *Module) Name() string { return m.name }

// Compile checks and compiles a tool's WebAssembly binary once. name is the
// tool's name, used in messages. It refuses with E-RUN-001 anything that is
// not a WASI preview 1 command module (a component, not wasm at all, no
// _start export) and with E-RUN-002 a module importing functions the runtime does not provide.
// Compile is safe for concurrent use, but compile each binary once and share
// the Module.
func (e *Engine) Compile(ctx context.Context, name string, wasm []byte) (*Module, error) {
	if err := e.errIfClosed(); err != nil {
		return nil, err
	}
	if err := checkHeader(name, wasm); err != nil {
		return nil, err
	}
	// wazero sizes vectors by their declared counts, and tables by their
	// limits: a lying count or an unbounded table would end the process,
	// not fail the compile. Prepare refuses the one and caps the other.
	wasm, err := wasmcheck.Prepare(wasm, e.tables)
	if err != nil {
		return nil, errcode.Wrap(errcode.RunCapsule, err, "compile tool '%s'", name).
			WithHint("%s", rebuildHint)
	}
	// Tools are compiled once per run, before any case starts: use every CPU.
	ctx = experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0))
	compiled, err := e.rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, errcode.Wrap(errcode.RunCapsule, err, "compile tool '%s'", name).
			WithHint("%s", rebuildHint)
	}
	if err := e.checkModule(name, compiled); err != nil {
		_ = compiled.Close(ctx)
		return nil, err
	}
	return &Module{name: name, compiled: compiled}, nil
}

// checkHeader refuses what is not a core module before wazero sees it, so a
// component gets a message saying so instead of a decoder error.
func checkHeader(name string, wasm []byte) error {
	if len(wasm) < 8 || string(wasm[:4]) != wasmMagic {
		return errcode.New(errcode.RunCapsule, "tool '%s' is not a WebAssembly module (no \\0asm header)", name).
			WithHint("%s", rebuildHint)
	}
	// After the magic: a 16-bit version and a 16-bit layer, little endian.
	// Core modules are version 1, layer 0; components are layer 1 with a
	// pre-release version (0x0d at the time of writing).
	version := uint16(wasm[4]) | uint16(wasm[5])<<8
	layer := uint16(wasm[6]) | uint16(wasm[7])<<8
	if layer == 1 {
		return errcode.New(errcode.RunCapsule,
			"tool '%s' is a WebAssembly component (version 0x%x, layer 1); components are not supported", name, version).
			WithHint("%s", rebuildHint)
	}
	if version != 1 || layer != 0 {
		return errcode.New(errcode.RunCapsule,
			"tool '%s' has unsupported WebAssembly version %d (layer %d); want a core module, version 1", name, version, layer).
			WithHint("%s", rebuildHint)
	}
	return nil
}

// checkModule refuses a compiled module that could not run as a tool.
func (e *Engine) checkModule(name string, c wazero.CompiledModule) error {
	var missing []string
	for _, f := range c.ImportedFunctions() {
		mod, fn, _ := f.Import()
		if !e.provides(mod, fn, f) {
			missing = append(missing, mod+"."+fn)
		}
	}
	for _, m := range c.ImportedMemories() {
		mod, n, _ := m.Import()
		missing = append(missing, mod+"."+n+" (memory)")
	}
	if len(missing) > 0 {
		return errcode.New(errcode.RunWASIImport,
			"tool '%s' imports %s, which the runtime does not provide", name, strings.Join(missing, ", ")).
			WithHint("tools may import only WASI preview 1 (%s); %s", wasiModule, rebuildHint)
	}
	if _, ok := c.ExportedFunctions()["_start"]; !ok {
		return errcode.New(errcode.RunCapsule, "tool '%s' exports no _start function: it is not a WASI command module", name).
			WithHint("build the tool as a program (package main with func main), not a library or reactor")
	}
	return nil
}

// provides reports whether the engine's host modules export mod.fn with
// the signature the guest expects.
func (e *Engine) provides(mod, fn string, want api.FunctionDefinition) bool {
	defs := e.wasi
	switch mod {
	case wasiModule:
	case HostModule:
		defs = e.own
	default:
		return false
	}
	have, ok := defs[fn]
	return ok && slices.Equal(have.ParamTypes(), want.ParamTypes()) &&
		slices.Equal(have.ResultTypes(), want.ResultTypes())
}
