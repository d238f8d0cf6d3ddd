package verify

import (
	"context"
	"encoding/json"
	"io/fs"
	"sort"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// prepare builds the run's toolset from verified artifacts: one engine,
// every WASM tool compiled once (which also proves it is a module wazero
// can run), the files each tool installs (which the Stage stage writes),
// and the inventory the model sees.
//
// The inference driver is compiled for murmur's driver world (driver.go),
// not staged as a tool: the loop runs it each turn. Hooks are compiled
// like WASM tools but kept out of the
// tools and the inventory: they go to the run's hook set (see hooks.go).
// Native tools are staged executable; they and shell tools run through the
// Spawner that finish makes.
//
// newEngine makes the run's engine (Runtime.NewEngine), asked for only
// when something is compiled.
func prepare(ctx context.Context, m *capsule.Manifest, arts []Artifact, newEngine func(context.Context) (*sandbox.Engine, error), builtinDriver bool) (*Toolset, error) {
	ts := &Toolset{Tools: map[string]*Tool{}}
	var hookArts []Artifact
	engine := func() (*sandbox.Engine, error) {
		if ts.Engine == nil {
			e, err := newEngine(ctx)
			if err != nil {
				return nil, err
			}
			ts.Engine = e
		}
		return ts.Engine, nil
	}
	for _, a := range arts {
		role := a.Archive.Manifest.Role()
		if role == capsule.RuntimeDriver {
			if !isInferenceDriver(m, a) || builtinDriver {
				continue // declared, never called (or --driver builtin): murmur does not stage it as a tool either
			}
			e, err := engine()
			if err != nil {
				return nil, err
			}
			if ts.Driver, err = compileDriver(ctx, e, m, a); err != nil {
				return ts, err
			}
			continue
		}
		if role == capsule.RuntimeHook {
			hookArts = append(hookArts, a)
			continue
		}
		t := &Tool{Name: a.Name}
		t.add(capsule.ManifestFile, []byte(a.Archive.ManifestText), 0o444)
		switch a.Archive.Packaging {
		case capsule.ExecutionStatic:
			t.Skill = string(a.Archive.Payload)
			t.add("skill.md", a.Archive.Payload, 0o444)
		case capsule.ExecutionWasm:
			e, err := engine()
			if err != nil {
				return nil, err
			}
			// The module is compiled, not installed: murmur's session
			// holds a WASM tool's murmur.yaml alone (its stage_session
			// installs native binaries and skills, never a component),
			// and nothing reads the bytes there (RATIONALE.md, "Why
			// does a session hold no WASM module?").
			if err := t.compileWasm(ctx, e, a.Archive.Payload); err != nil {
				return nil, err
			}
		case capsule.ExecutionNative:
			// Installed as tools/<name>/<name>, executable (§3.2).
			t.Native = true
			t.add(a.Name, a.Archive.Payload, 0o555)
		default:
			return nil, errcode.New(errcode.RunCapsule, "artifact %s@%s has an unknown packaging type %q", a.Name, a.Version, a.Archive.Packaging)
		}
		t.Network, _ = m.NetworkRules(declaration(m, a.Name))
		ts.Tools[a.Name] = t
		if role == capsule.RuntimeSkill && m.Inference != nil && m.Inference.SystemPromptArtifact == a.Name {
			continue // bound as the system prompt: murmur leaves it out of the model's tool list
		}
		ts.Inventory = append(ts.Inventory, inventoryEntry(a.Name, a.Archive, role))
	}
	sort.Slice(ts.Inventory, func(i, j int) bool { return ts.Inventory[i].Name < ts.Inventory[j].Name })
	if len(hookArts) > 0 {
		e, err := engine()
		if err != nil {
			return ts, err
		}
		if ts.Hooks, err = loadHooks(ctx, e, m, hookArts); err != nil {
			return ts, err
		}
	}
	return ts, nil
}

// add records a file the Stage stage installs in tools/<name>/.
func (t *Tool) add(name string, data []byte, mode fs.FileMode) {
	t.Files = append(t.Files, ToolFile{Name: name, Data: data, Mode: mode})
}

// inventoryEntry is murmur's inventory entry: the artifact's name in the
// capsule manifest (its tools/ folder), parameters (skills get
// the empty schema), description (skills fall back to skill.md's first
// non-blank line).
func inventoryEntry(name string, a *capsule.Archive, role capsule.Runtime) inference.Tool {
	params, desc := a.Manifest.InputSchema, a.Manifest.Description
	if role == capsule.RuntimeSkill || len(params) == 0 {
		params = json.RawMessage(capsule.DefaultInputSchema)
	}
	if desc == "" && role == capsule.RuntimeSkill {
		for _, line := range strings.Split(string(a.Payload), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				desc = line
				break
			}
		}
	}
	return inference.Tool{Name: name, Parameters: params, Description: desc}
}
