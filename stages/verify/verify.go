// Package verify is the Verify stage: every resolved artifact's bytes are
// hashed and checked against its .sha256 sidecar and the murmur.lock pin,
// its archive is read, and its WASM module compiled. The work is the same
// for every case, so it is done once per run and shared; any mismatch fails
// every case with E-REG-002 and nothing is installed in any session.
package verify

import (
	"context"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
)

// Name is the stage's name in the graph.
const Name = "verify"

// Result is the key of the stage's result, the run's *Toolset.
var Result = pipeline.NewKey[*Toolset](Name) //nolint:gochecknoglobals // a constant key (Go has no const of a generic type)

// Decl declares the stage to the graph (package stages wires the table).
var Decl = pipeline.Decl{Name: Name, Produces: Result, Requires: []string{resolve.Name}, Shared: true} //nolint:gochecknoglobals // a declaration, as go/analysis's Analyzer values

// Artifact is one artifact whose bytes Verify checked against its sidecar
// and the lock, with its archive read.
type Artifact struct {
	capsule.Pinned
	SHA256  string
	Archive *capsule.Archive
}

// Toolset is Verify's run-wide result (Result): every model-visible tool compiled or
// read once, the files each session links, and the inventory the model sees.
type Toolset struct {
	// Artifacts are the verified artifacts, in pin order.
	Artifacts []Artifact
	Engine    *sandbox.Engine
	Tools     map[string]*Tool
	Inventory []inference.Tool // sorted by name, as murmur's inventory.rs
	// Host is the run's host probe, made once; Spawner runs shell and
	// native tools (nil when the capsule has neither).
	Host    sandbox.Host
	Spawner *sandbox.Spawner
	// Hooks are the capsule's hook artifacts, compiled and checked once;
	// nil when it declares none.
	Hooks *hooks.Set
	// Driver is the capsule's inference driver component, compiled once;
	// nil when the driver artifact is not installed (a built-in provider
	// serves then) or the capsule has no http inference.
	Driver *Driver
	// Script is a script capsule's component (world capsule), compiled
	// once; nil for an agent capsule.
	Script *component.Component
	// Warnings are murmur's W-SEC warnings for this capsule on this host,
	// as "warning[W-SEC-NNN]: text" lines: the run prints them once.
	Warnings []string
}

// ToolFile is a file a tool installs in tools/<name>/ of every session:
// its bytes, read once from the verified archive, and its mode.
type ToolFile struct {
	Name string
	Data []byte
	Mode fs.FileMode
}

// Tool is one staged, model-visible artifact.
type Tool struct {
	Name   string
	Module *sandbox.Module // WASM preview-1 tools; nil for skills
	// Component is a WASM tool that is a component (world tool), compiled
	// once for the run; Module is then nil.
	Component *component.Component
	Skill     string // skill.md text of skills
	Native    bool   // a native tool: tools/<name>/<name> in the session
	Shell     bool   // a capabilities.shell.allow binary
	// Scope is the artifact's own filesystem.scope ("" for the whole
	// session dir), validated before any case runs.
	Scope string
	// Network is a WASM tool's effective allow list for wasi:http
	// (capsule.Manifest.NetworkRules).
	Network []capsule.AllowRule
	// Files are what the Stage stage installs in the session's
	// tools/<name>/, as murmur does: murmur.yaml, and a native tool's
	// binary or a skill's skill.md (none for a shell tool; a WASM
	// tool's module is compiled, never installed).
	Files []ToolFile
}

// Options say where the run's launcher copy and compiled code go.
type Options struct {
	// RunDir is the run folder: the subprocess launcher's copy goes there
	// (it must be reachable by the subprocess user).
	RunDir string
	// CacheDir is wazero's compilation cache across runs; "" for none.
	CacheDir string
	// Runtime makes the engine and the Spawner, which the run owns and
	// closes; Run fails (E-EVL-099) without one.
	Runtime Runtime
	// BuiltinDriver leaves the capsule's installed inference driver
	// uncompiled (Toolset.Driver nil): the built-in provider answers the
	// model turns instead (--driver builtin, docs/providers.md). The driver
	// is still resolved and its digest verified.
	BuiltinDriver bool
}

// Stage is the Verify stage. It is safe for concurrent use. What its
// toolset holds open (the engine, the Spawner) is the run's
// (Options.Runtime), closed by the run.
type Stage struct {
	opts Options
	memo pipeline.Memo[*Toolset]
}

// New returns a Verify stage for one run.
func New(opts Options) *Stage { return &Stage{opts: opts} }

// Name returns "verify".
func (s *Stage) Name() string { return Name }

// Run stores the run's Toolset, verifying and compiling on first use.
func (s *Stage) Run(ctx context.Context, c *pipeline.Case) error {
	cap, err := pipeline.ResultOf(c, resolve.Result)
	if err != nil {
		return err
	}
	rt := s.opts.Runtime
	if rt == nil {
		return errcode.New(errcode.Internal, "verify: the run has no runtime for the engine and the launcher (build the stage table with stages.New)")
	}
	ts, err := s.memo.Get(ctx, func(ctx context.Context) (*Toolset, error) {
		host, scopes, err := preflight(ctx, cap.Manifest)
		if err != nil {
			return nil, err
		}
		arts, err := verifyAll(cap.Pins)
		if err != nil {
			return nil, err
		}
		lim := cap.Manifest.Capabilities.Limits
		cfg := sandbox.Config{CacheDir: s.opts.CacheDir, MemoryLimitBytes: lim.MemoryBytes,
			TableElements: uint32(min(lim.TableElements, math.MaxUint32)), Instances: lim.Instances}
		newEngine := func(ctx context.Context) (*sandbox.Engine, error) { return rt.NewEngine(ctx, cfg) }
		ts, err := prepare(ctx, cap.Manifest, arts, newEngine, s.opts.BuiltinDriver)
		if ts != nil {
			ts.Artifacts = arts
		}
		if err != nil {
			return ts, err
		}
		if cap.Script != "" {
			if err := ts.prepareScript(ctx, cap.Script, newEngine); err != nil {
				return ts, err
			}
		}
		err = finish(ts, rt, cap.Manifest, host, scopes, s.opts.RunDir)
		return ts, err
	})
	if err != nil {
		return err
	}
	pipeline.Store(c, Result, ts)
	return nil
}

// Warnings returns murmur's W-SEC warnings for the capsule on this host,
// as "[capsule-runtime] warning[W-SEC-NNN]: text (link)" lines, for the run
// to print once. Call it only after a successful preparation.
func (s *Stage) Warnings() []string {
	ts, ok, err := s.memo.Stored()
	if !ok || err != nil || ts == nil {
		return nil
	}
	out := make([]string, len(ts.Warnings))
	for i, w := range ts.Warnings {
		out[i] = "[capsule-runtime] " + w + " (" + diagnosticsLink(w) + ")"
	}
	return out
}

// diagnosticsLink is murmur's documentation anchor for a W-SEC warning.
func diagnosticsLink(warning string) string {
	const base = "https://docs.murmur.nexus/murmur-nexus/murmur/reference/diagnostics/"
	if i := strings.Index(warning, "W-SEC-"); i >= 0 && len(warning) >= i+9 {
		return base + "#" + strings.ToLower(warning[i:i+9])
	}
	return base
}

// verifyAll checks every artifact before returning any, so a run with one
// bad artifact uses none of them.
func verifyAll(pins []capsule.Pinned) ([]Artifact, error) {
	arts := make([]Artifact, 0, len(pins))
	for _, p := range pins {
		zip, err := os.ReadFile(p.Resolved.ZipPath)
		if err != nil {
			return nil, errcode.Wrap(errcode.IO, err, "read artifact %s@%s", p.Name, p.Version)
		}
		if err := capsule.Verify(p.Name, p.Version, zip, p.Resolved.SidecarSHA256, p.LockSHA256); err != nil {
			return nil, err
		}
		ar, err := capsule.ReadArchive(p.Name, p.Version, zip, p.Resolved.MaxEntryBytes)
		if err != nil {
			return nil, err
		}
		arts = append(arts, Artifact{Pinned: p, SHA256: capsule.SHA256Hex(zip), Archive: ar})
	}
	return arts, nil
}

// UnknownKeys returns the unknown keys of the artifacts' own manifests
// (murmur ignores them; the run warns), in artifact order. Call it only
// after a successful preparation.
func (s *Stage) UnknownKeys() []capsule.UnknownKey {
	ts, ok, err := s.memo.Stored()
	if !ok || err != nil || ts == nil {
		return nil
	}
	var out []capsule.UnknownKey
	for _, a := range ts.Artifacts {
		if a.Archive != nil && a.Archive.Manifest != nil {
			out = append(out, a.Archive.Manifest.UnknownKeys...)
		}
	}
	return out
}
