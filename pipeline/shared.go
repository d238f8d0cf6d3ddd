package pipeline

import (
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// Capsule is Resolve's run-wide result: the parsed manifest and every
// registry artifact pinned and found in a store.
type Capsule struct {
	Manifest *capsule.Manifest
	Pins     []capsule.Pinned
}

// Artifact is one artifact whose bytes Verify checked against its sidecar
// and the lock, with its archive read.
type Artifact struct {
	capsule.Pinned
	SHA256  string
	Archive *capsule.Archive
}

// Toolset is Stage's run-wide result: every model-visible tool compiled or
// read once, the files each session links, and the inventory the model sees.
type Toolset struct {
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
	// Warnings are murmur's W-SEC warnings for this capsule on this host,
	// as "warning[W-SEC-NNN]: text" lines: the run prints them once.
	Warnings []string
}

// Tool is one staged, model-visible artifact.
type Tool struct {
	Name   string
	Module *sandbox.Module // WASM tools; nil for skills
	Skill  string          // skill.md text of skills
	Native bool            // a native tool: tools/<name>/<name> in the session
	Shell  bool            // a capabilities.shell.allow binary
	// Scope is the artifact's own filesystem.scope ("" for the whole
	// session dir), validated before any case runs.
	Scope string
	// Files maps a file name under the session's tools/<name>/ to the
	// run-level copy it is linked from.
	Files map[string]string
}

// Policy is what Contain decided a case's sandbox allows.
type Policy struct {
	Declared string // the manifest's containment floor, "advisory" when absent
	Achieved string // the class this host gives the case
	Root     string // the host folder a guest sees as "/": the session dir
	Env      []string
	Deadline time.Duration // per tool call: capabilities.limits.deadline_seconds

	// ShellEnv and NativeEnv are the whole environments of shell tools
	// (with the MURMUR_* values) and of native tools (without).
	ShellEnv, NativeEnv []string
	// Resources bound every subprocess (rlimits, workdir guard).
	Resources   capsule.Resources
	WorkdirExec bool
	// Isolate: network.allow is empty, so subprocesses get their own
	// network namespace.
	Isolate bool
	// Grants is murmur's effective_grants object for session_start.
	Grants map[string]any
}
