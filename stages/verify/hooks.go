package verify

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// loadHooks compiles each hook artifact once (a component of murmur's hook
// world, or a WASI preview 1 command module, told apart by its preamble as
// a WASM tool is) and builds the run's hook set in manifest
// order, with the operator's grant (filesystem.scope, on_overflow) from
// the capsule manifest. hooks.Load refuses what murmur's staging refuses.
func loadHooks(ctx context.Context, e *sandbox.Engine, m *capsule.Manifest, arts []Artifact) (*hooks.Set, error) {
	decls := map[string]capsule.ArtifactDecl{}
	for _, d := range m.Artifacts {
		decls[d.Name] = d
	}
	specs := make([]hooks.Spec, 0, len(arts))
	for _, a := range arts {
		if a.Archive.Packaging != capsule.ExecutionWasm {
			return nil, errcode.New(errcode.RunCapsule, "hook %s@%s is not a WASM module (packaging %q)", a.Name, a.Version, a.Archive.Packaging).
				WithHint("build the hook as a component of murmur's hook world or a WASI preview 1 command module (docs/hooks.md)")
		}
		d := decls[a.Name]
		sp := hooks.Spec{Name: a.Name, Version: a.Version, Manifest: []byte(a.Archive.ManifestText), Overflow: d.OnOverflow}
		var err error
		if sandbox.IsComponent(a.Archive.Payload) {
			sp.Component, err = compileComponent(ctx, e, "hook '"+a.Name+"'", a.Archive.Payload, component.WorldHook)
		} else {
			sp.Module, err = e.Compile(ctx, a.Name, a.Archive.Payload)
		}
		if err != nil {
			return nil, err
		}
		if d.Capabilities != nil {
			sp.Scope = d.Capabilities.Filesystem.Scope
		}
		sp.Network, _ = m.NetworkRules(&d)
		specs = append(specs, sp)
	}
	return hooks.Load(e, specs, hooks.OptionsFor(m))
}
