package capsule

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Runtime is an artifact's role: what the capsule does with it.
type Runtime string

// The artifact roles. Tools and skills are visible to the model; drivers and
// hooks are not.
const (
	RuntimeTool   Runtime = "tool"
	RuntimeDriver Runtime = "driver"
	RuntimeHook   Runtime = "hook"
	RuntimeSkill  Runtime = "skill"
)

// Overflow is what an async hook does with an event when its queue (depth
// 1024) is full.
type Overflow string

// The overflow policies; drop is the default.
const (
	OverflowDrop  Overflow = "drop"
	OverflowBlock Overflow = "block"
)

// ArtifactDecl is one entry of the manifest's artifacts list (§1.3).
type ArtifactDecl struct {
	Name          string
	Version       string // "local" when Source is set
	Runtime       Runtime
	Source        string // local path (relative to Dir unless absolute); "" when absent
	LocalSource   bool   // default: true for skills, false otherwise
	PromptPayload bool   // default: true for skills, false otherwise
	// Capabilities is the operator's grant for this artifact alone (§5.7);
	// nil when absent, never set on a skill. A hook without one gets no
	// network and no filesystem; a tool or driver without one inherits the
	// capsule-wide ceiling.
	Capabilities *Capabilities
	OnOverflow   Overflow // drop unless a hook declares block

	where string // the entry's position in murmur.yaml, for later errors
}

// IsLocal reports whether the artifact comes from a local source path rather
// than a registry; murmur never locks or resolves such artifacts.
func (a ArtifactDecl) IsLocal() bool { return a.Source != "" }

// Where returns the entry's position in the manifest ("murmur.yaml:12:5"),
// for errors about the artifact found after parsing (not installed, ...).
func (a ArtifactDecl) Where() string { return a.where }

type rawArtifact struct {
	node                                       *yaml.Node
	name, version, runtime, source, onOverflow scalar
	localSource, promptPayload                 optBool
	capabilities                               *rawCapabilities
}

func decodeArtifact(d *decoder, item *yaml.Node, i int) (rawArtifact, error) {
	m, err := d.mapping(item, "artifacts["+strconv.Itoa(i)+"]", "a mapping")
	if err != nil {
		return rawArtifact{}, err
	}
	var errs fieldErrs
	a := rawArtifact{node: m.node}
	a.name = errs.str(m, "name")
	a.version = errs.str(m, "version")
	a.runtime = errs.str(m, "runtime")
	a.source = errs.str(m, "source")
	a.localSource = errs.boolean(m, "local_source")
	a.promptPayload = errs.boolean(m, "prompt_payload")
	a.onOverflow = errs.str(m, "on_overflow")
	if c := errs.child(m, "capabilities"); c != nil && errs.first == nil {
		a.capabilities, errs.first = decodeCapabilities(c)
	}
	return a, errs.first
}

// lowerArtifact validates one entry in murmur's order: name, runtime,
// source against local_source, version, capabilities, on_overflow. It
// returns murmur's stderr warning, if any.
func lowerArtifact(d *decoder, ra rawArtifact, i int) (ArtifactDecl, string, error) {
	invalid := func(n *yaml.Node, format string, args ...any) error {
		if n == nil {
			n = ra.node
		}
		return errcode.New(errcode.ManifestInvalid, "invalid artifact declaration at index %d: %s",
			i, fmt.Sprintf(format, args...)).At(d.where(n))
	}
	if ra.name.blank() {
		return ArtifactDecl{}, "", invalid(ra.name.node, "missing required field 'name'")
	}
	if why := pathElementProblem(ra.name.text); why != "" {
		return ArtifactDecl{}, "", errcode.New(errcode.ManifestInvalid, "invalid artifact declaration at index %d: artifact name %q %s", i, ra.name.text, why).
			At(d.where(ra.name.node)).WithHint("the name is the folder tools/<name>/ of every session: use a plain name such as 'notes', without '/', '\\', '.' or '..'")
	}
	a := ArtifactDecl{Name: ra.name.text, Runtime: RuntimeTool, OnOverflow: OverflowDrop, where: d.where(ra.node)}
	if !ra.source.blank() {
		a.Source = ra.source.text
	}
	if ra.runtime.node != nil {
		switch r := Runtime(ra.runtime.text); r {
		case RuntimeTool, RuntimeDriver, RuntimeHook, RuntimeSkill:
			a.Runtime = r
		case "wasm", "native":
			return a, "", invalid(ra.runtime.node, "use 'runtime: tool'; implementation is declared in the artifact's own manifest (got '%s')", r)
		default:
			return a, "", invalid(ra.runtime.node, "unknown runtime '%s'; expected one of: tool, driver, hook, skill", r)
		}
	}
	a.LocalSource = boolOr(ra.localSource, a.Runtime == RuntimeSkill)
	a.PromptPayload = boolOr(ra.promptPayload, a.Runtime == RuntimeSkill)
	if a.Source != "" && !a.LocalSource {
		return a, "", invalid(ra.source.node, "artifact '%s' declares 'source:' but does not declare 'local_source: true' (runtime: %s)", a.Name, a.Runtime)
	}
	var warn string
	switch {
	case a.Source != "":
		a.Version = "local"
		if !ra.version.blank() {
			warn = fmt.Sprintf("artifact '%s' declares both 'source:' and 'version: %s'; version is ignored for local-source skills (using 'local')", a.Name, ra.version.text)
		}
	case ra.version.blank():
		return a, "", invalid(ra.version.node, "missing required field 'version'")
	default:
		a.Version = ra.version.text
	}
	if ra.capabilities != nil {
		if a.Runtime == RuntimeSkill {
			return a, "", invalid(ra.capabilities.node, "artifact '%s' declares per-artifact 'capabilities:' but has 'runtime: %s'; per-artifact capabilities are only recognized on 'runtime: hook', 'runtime: tool', and 'runtime: driver' entries — use the capsule-wide top-level 'capabilities:' block instead", a.Name, a.Runtime)
		}
		c, err := lowerCapabilities(d, ra.capabilities)
		if err != nil {
			return a, "", err
		}
		a.Capabilities = &c
	}
	if ra.onOverflow.node != nil {
		if a.Runtime != RuntimeHook {
			return a, "", invalid(ra.onOverflow.node, "artifact '%s' declares 'on_overflow:' but has 'runtime: %s'; the key governs an async hook's job queue and is only recognized on 'runtime: hook' entries", a.Name, a.Runtime)
		}
		switch o := Overflow(ra.onOverflow.text); o {
		case OverflowDrop, OverflowBlock:
			a.OnOverflow = o
		default:
			return a, "", invalid(ra.onOverflow.node, "artifact '%s' declares unknown on_overflow '%s'; expected: drop, block", a.Name, o)
		}
	}
	return a, warn, nil
}
