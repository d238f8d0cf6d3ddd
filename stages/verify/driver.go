package verify

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// Driver is the capsule's inference driver, installed and compiled once
// for the run: Launch binds it to each case (inference.Case.Driver), which
// runs it on a fresh instance per model turn, as murmur does.
type Driver struct {
	Name      string
	Component *component.Component
	// Network is the driver's effective allow list
	// (capsule.Manifest.NetworkRules): its own network.allow under the
	// capsule's, else the capsule's.
	Network []capsule.AllowRule
	// Scope is the driver's own filesystem.scope ("" for the whole
	// session folder), validated before any case runs.
	Scope string
}

// isInferenceDriver says whether artifact a is the one the manifest's
// transport: http inference block names as its driver.
func isInferenceDriver(m *capsule.Manifest, a Artifact) bool {
	inf := m.Inference
	return inf != nil && inf.Transport == capsule.TransportHTTP && inf.DriverArtifact == a.Name
}

// compileDriver compiles the driver artifact for murmur's driver world. A
// driver that is not a WASM component is E-RUN-001: murmur runs drivers
// as components only.
func compileDriver(ctx context.Context, e *sandbox.Engine, m *capsule.Manifest, a Artifact) (*Driver, error) {
	if a.Archive.Packaging != capsule.ExecutionWasm || !sandbox.IsComponent(a.Archive.Payload) {
		return nil, errcode.New(errcode.RunCapsule, "driver %s@%s is not a WebAssembly component exporting murmur:tool/run", a.Name, a.Version).
			WithHint("build the driver for murmur's driver world (cargo build --target wasm32-wasip2)")
	}
	c, err := compileComponent(ctx, e, "driver '"+a.Name+"'", a.Archive.Payload, component.WorldDriver)
	if err != nil {
		return nil, err
	}
	d := &Driver{Name: a.Name, Component: c}
	d.Network, _ = m.NetworkRules(declaration(m, a.Name))
	return d, nil // Scope is set with the tools' (finish)
}

// declaration is the manifest's artifacts: entry named name, nil if none.
func declaration(m *capsule.Manifest, name string) *capsule.ArtifactDecl {
	for i := range m.Artifacts {
		if m.Artifacts[i].Name == name {
			return &m.Artifacts[i]
		}
	}
	return nil
}
