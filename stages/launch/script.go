package launch

import (
	"context"
	"errors"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
)

// scriptRunner runs a script capsule's component in one case's session.
type scriptRunner struct {
	tools *toolbox
	// allow is the manifest's runtime: tool artifacts, the only names the
	// registry serves.
	allow map[string]bool
}

// newScript is a script capsule's session: no model, no loop settings
// beyond the capsule's identity and containment, and the runner Loop
// calls.
func newScript(m *capsule.Manifest, c *pipeline.Case, pol *contain.Policy, tools *toolbox) (session.LoopConfig, *scriptRunner) {
	allow := map[string]bool{}
	for _, a := range m.Artifacts {
		if a.Runtime == "" || a.Runtime == capsule.RuntimeTool {
			allow[a.Name] = true
		}
	}
	cfg := session.LoopConfig{
		CapsuleName: m.Name, CapsuleVersion: m.Version, Workdir: c.SessionDir,
		Containment: pol.Achieved, DeclaredContainment: pol.Declared,
		Capabilities: capabilityNames(m.Capabilities), WorkdirExec: pol.WorkdirExec, EffectiveGrants: pol.Grants,
	}
	return cfg, &scriptRunner{tools: tools, allow: allow}
}

// RunScript calls the capsule's murmur:capsule/run once: the session
// folder preopened as ".", the guest environment without murmur's MURMUR_*
// values (a script capsule and its tools get none, murmur-formats.md
// §1.12), the capsule's capabilities.limits (deadline_seconds, 600 s when
// the manifest is silent, and memory_bytes), and the registry. Its stdout, stderr and chunks go to logs/components.jsonl.
// A session folder grown past workdir_max_bytes by the run is E-RUN-013.
func (s *scriptRunner) RunScript(ctx context.Context) (session.ScriptOutput, error) {
	t := s.tools
	t.reach() // before the open: a failed one still counts (exposure.go)
	root, err := openScope(t.policy.Root, "")
	if err != nil {
		return session.ScriptOutput{}, err
	}
	defer func() { _ = root.Close() }()
	out, err := t.set.Script.RunCapsule(ctx, component.Env{
		Name:             "capsule",
		Root:             root,
		Env:              scriptEnv(t.policy.Env),
		Args:             []string{"capsule"},
		Deadline:         t.policy.Deadline,
		MemoryLimitBytes: t.set.Engine.MemoryLimitBytes(),
		MaxOutputBytes:   t.set.Engine.MaxOutputBytes(),
		Registry:         registry{s},
	})
	logComponent(t.policy.Root, "capsule", out.Chunks, out.Stdout, out.Stderr)
	if err == nil {
		// The workdir guard, once the run is over (E-RUN-013).
		err = t.guard()
	}
	return session.ScriptOutput{Stdout: out.Stdout, Stderr: out.Stderr}, err
}

// scriptEnv is env without murmur's MURMUR_* identity values.
func scriptEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "MURMUR_") {
			out = append(out, kv)
		}
	}
	return out
}

// registry serves murmur:tool-registry/invoke: only the manifest's
// runtime: tool artifacts that are WASM tools, in murmur's words otherwise
// (murmur-session.md §8).
type registry struct{ s *scriptRunner }

// Invoke runs the allowlisted WASM tool name with input. A component gets
// input as is; a preview-1 module gets it as murmur's stdin JSON and its
// output is read as a preview-1 tool's. A call that failed (a trap, the
// tool's deadline or memory limit) is the guest's err with the reason.
func (r registry) Invoke(ctx context.Context, name string, in component.ToolInput) (component.ToolResult, error) {
	t := r.s.tools
	if !r.s.allow[name] {
		return component.ToolResult{}, errors.New("tool '" + name + "' is not declared in manifest allowlist")
	}
	tool := t.set.Tools[name]
	env := scriptEnv(t.policy.Env)
	switch {
	case tool != nil && tool.Component != nil:
		return t.runComponent(ctx, tool, in, env)
	case tool != nil && tool.Module != nil:
		data := ""
		if in.Data != nil {
			data = *in.Data
		}
		out, err := t.runModule(ctx, tool, data, env)
		if err != nil {
			return component.ToolResult{}, err
		}
		return unlifted(sandbox.ParseToolResult(tool.Name, out)), nil
	}
	return component.ToolResult{}, errors.New("tool '" + name + "' is not available in this session")
}

// unlifted is a preview-1 tool's result as a tool-result record.
func unlifted(r sandbox.ToolResult) component.ToolResult {
	out := component.ToolResult{Status: r.Status, Metadata: r.Metadata}
	if r.HasSummary {
		s := r.Summary
		out.Summary = &s
	}
	if r.HasData {
		d := r.Data
		out.Data = &d
	}
	return out
}
