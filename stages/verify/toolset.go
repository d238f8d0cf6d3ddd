package verify

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// prepare builds the run's toolset from verified artifacts: one engine,
// every WASM tool compiled once (which also proves it is a module wazero
// can run), every tool's files written once under opts.StagedDir for the
// sessions to link, and the inventory the model sees.
//
// Drivers are not staged: murmur-eval serves model providers natively (see
// RATIONALE.md). Hooks are compiled like WASM tools but kept out of the
// tools and the inventory: they go to the run's hook set (see hooks.go).
// Native tools are staged executable; they and shell tools run through the
// Spawner that finish makes.
func prepare(ctx context.Context, opts Options, m *capsule.Manifest, arts []Artifact, cfg sandbox.Config) (*Toolset, error) {
	ts := &Toolset{Tools: map[string]*Tool{}}
	var hookArts []Artifact
	engine := func() (*sandbox.Engine, error) {
		if ts.Engine == nil {
			e, err := sandbox.NewEngine(ctx, cfg)
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
			continue
		}
		if role == capsule.RuntimeHook {
			hookArts = append(hookArts, a)
			continue
		}
		dir := filepath.Join(opts.StagedDir, a.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, errcode.Wrap(errcode.IO, err, "create %s", dir)
		}
		t := &Tool{Name: a.Name, Files: map[string]string{}}
		if err := writeShared(t, dir, capsule.ManifestFile, []byte(a.Archive.ManifestText)); err != nil {
			return nil, err
		}
		switch a.Archive.Packaging {
		case capsule.ExecutionStatic:
			t.Skill = string(a.Archive.Payload)
			if err := writeShared(t, dir, "skill.md", a.Archive.Payload); err != nil {
				return nil, err
			}
		case capsule.ExecutionWasm:
			e, err := engine()
			if err != nil {
				return nil, err
			}
			mod, err := e.Compile(ctx, a.Name, a.Archive.Payload)
			if err != nil {
				return nil, err
			}
			t.Module = mod
			if err := writeShared(t, dir, path.Base(a.Archive.PayloadEntry), a.Archive.Payload); err != nil {
				return nil, err
			}
		case capsule.ExecutionNative:
			// Installed as tools/<name>/<name>, executable (§3.2).
			t.Native = true
			p := filepath.Join(dir, a.Name)
			_ = os.Remove(p)
			if err := os.WriteFile(p, a.Archive.Payload, 0o555); err != nil {
				return nil, errcode.Wrap(errcode.IO, err, "write %s", p)
			}
			t.Files[a.Name] = p
		default:
			return nil, errcode.New(errcode.RunCapsule, "artifact %s@%s has an unknown packaging type %q", a.Name, a.Version, a.Archive.Packaging)
		}
		ts.Tools[a.Name] = t
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

// writeShared writes a run-level file read-only and records it in t.Files.
func writeShared(t *Tool, dir, name string, data []byte) error {
	p := filepath.Join(dir, name)
	_ = os.Remove(p)
	if err := os.WriteFile(p, data, 0o444); err != nil {
		return errcode.Wrap(errcode.IO, err, "write %s", p)
	}
	t.Files[name] = p
	return nil
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
