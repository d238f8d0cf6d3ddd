package verify

import (
	"context"
	"os"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// compileWasm compiles a WASM tool once for the run: a component
// (sandbox/component, world tool) or a WASI preview-1 module (the engine),
// told apart by the binary's preamble. Both use the engine's runtime and
// compilation cache. A component of a shape or world the host does not run
// is E-RUN-001 naming the tool and what is unsupported.
func (t *Tool) compileWasm(ctx context.Context, e *sandbox.Engine, payload []byte) error {
	if !sandbox.IsComponent(payload) {
		mod, err := e.Compile(ctx, t.Name, payload)
		t.Module = mod
		return err
	}
	c, err := compileComponent(ctx, e, "tool '"+t.Name+"'", payload, component.WorldTool)
	t.Component = c
	return err
}

// compileComponent decodes and compiles a component for world w.
func compileComponent(ctx context.Context, e *sandbox.Engine, what string, payload []byte, w component.World) (*component.Component, error) {
	bin, err := component.Decode(payload)
	if err != nil {
		return nil, errcode.Wrap(errcode.RunCapsule, err, "%s", what)
	}
	c, err := component.Compile(ctx, e.Runtime(), bin, w, component.WithTableElements(e.TableElements()), component.WithInstances(e.Instances()))
	if err != nil {
		return nil, errcode.Wrap(errcode.RunCapsule, err, "%s", what)
	}
	return c, nil
}

// compileScript compiles a script capsule's component (world capsule),
// found by Resolve at path.
func compileScript(ctx context.Context, e *sandbox.Engine, path string) (*component.Component, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "read script capsule %s", path)
	}
	if !sandbox.IsComponent(data) {
		return nil, errcode.New(errcode.RunCapsule, "script capsule %s is not a WebAssembly component exporting murmur:capsule/run", path).
			WithHint("build the capsule for murmur's capsule world (cargo build --target wasm32-wasip2)")
	}
	return compileComponent(ctx, e, "script capsule "+path, data, component.WorldCapsule)
}

// prepareScript compiles the script capsule's component with the run's
// engine (made here when the capsule has no WASM tool).
func (ts *Toolset) prepareScript(ctx context.Context, path string, newEngine func(context.Context) (*sandbox.Engine, error)) error {
	if ts.Engine == nil {
		e, err := newEngine(ctx)
		if err != nil {
			return err
		}
		ts.Engine = e
	}
	c, err := compileScript(ctx, ts.Engine, path)
	ts.Script = c
	return err
}
