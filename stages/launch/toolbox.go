package launch

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// toolbox runs a case's tools: the run's shared compiled modules and the
// subprocess launcher under the case's policy. It belongs to one case.
type toolbox struct {
	set    *verify.Toolset
	policy *contain.Policy
	// http sends every component guest's wasi:http requests (the run's
	// shared client; nil: one per call); denied keeps the requests the
	// guests' allow lists refused, for the loop to trace.
	http   *http.Client
	denied *session.Denials
	// guarded is when the workdir guard last walked the session folder.
	guarded time.Time
	// reached is set before the session folder is first handed to code
	// murmur-eval does not trust (exposure.go). Atomic: a process CLI's
	// calls come from its bridge's goroutines, not the case's.
	reached atomic.Bool
}

// guardEvery is how often, at most, a WASM call is followed by the workdir
// guard's walk of the session folder. murmur polls every 10 s; a WASM
// tool writes only through the engine, within its deadline and memory.
const guardEvery = 250 * time.Millisecond

func (t *toolbox) Inventory() []inference.Tool { return t.set.Inventory }

// toolInput is murmur's native-tool stdin: the model's input as a JSON
// string, and no log path.
type toolInput struct {
	Data    string  `json:"data"`
	LogPath *string `json:"log_path"`
}

// Call dispatches in murmur's order (murmur-session.md §1.5): a native
// tool, a shell binary, a skill's guidance, a WASM tool (a preview-1
// module or a component, component.go) in a fresh instance. Every failure of the tool itself becomes an error reply the
// model sees; the case stops only when its context ends or its session dir
// has grown past workdir_max_bytes (E-RUN-013), which is checked after
// every shell or native call, and after a WASM call when the last check is
// guardEvery old (only tools and hooks write to the session, so a check
// before a call would repeat the previous one's; RATIONALE.md).
func (t *toolbox) Call(ctx context.Context, name string, input json.RawMessage) (session.ToolReply, error) {
	// Any call, of any kind, counts: what a tool kind may reach is not
	// worked out here (exposure.go).
	t.reach()
	tool, ok := t.set.Tools[name]
	if !ok {
		if text, ok := t.sessionSkill(name); ok {
			return session.ToolReply{Text: text, Skill: true}, nil
		}
		return session.ToolReply{Text: "tool '" + name + "' is not declared in manifest allowlist", IsError: true, Code: errcode.ToolNotProvided}, nil
	}
	if tool.Module == nil && tool.Component == nil && !tool.Native && !tool.Shell {
		return session.ToolReply{Text: tool.Skill, Skill: true}, nil
	}
	var reply session.ToolReply
	var err error
	switch {
	case tool.Native:
		reply, err = t.native(ctx, name, input)
	case tool.Shell:
		reply, err = t.shell(ctx, name, input)
	case tool.Component != nil:
		reply, err = t.component(ctx, tool, input)
	default:
		reply, err = t.wasm(ctx, tool, input)
	}
	if err != nil {
		return reply, err
	}
	if tool.Native || tool.Shell || time.Since(t.guarded) >= guardEvery {
		return reply, t.guard()
	}
	return reply, nil
}

// sessionSkill is murmur's skill dispatch for a name the toolset does not
// know: a tools/<name>/skill.md in the session (a local-source skill, which
// has no murmur.yaml and so is in no inventory) is served as the skill's
// guidance. The file is read confined to the session folder.
func (t *toolbox) sessionSkill(name string) (string, bool) {
	if t.policy == nil || name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return "", false
	}
	b, err := sessionfs.ReadFile(t.policy.Root, "tools/"+name+"/skill.md", maxToolFile)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// guard is the workdir size guard.
func (t *toolbox) guard() error {
	t.guarded = time.Now()
	return sandbox.CheckSession(cmp.Or(t.policy.Layer, t.policy.Root), t.policy.Resources)
}

// wasm runs a WASM tool; a tool with its own filesystem.scope sees only
// that folder of the session (created if missing).
func (t *toolbox) wasm(ctx context.Context, tool *verify.Tool, input json.RawMessage) (session.ToolReply, error) {
	out, err := t.runModule(ctx, tool, string(input), t.policy.Env)
	if err != nil {
		if ctx.Err() != nil {
			return session.ToolReply{}, err
		}
		return session.ToolReply{Text: err.Error(), IsError: true, Code: errcode.Code(err)}, nil
	}
	return resultReply(sandbox.ParseToolResult(tool.Name, out)), nil
}

// runModule runs a preview-1 WASM tool with data as murmur's stdin
// tool input and env as its environment.
func (t *toolbox) runModule(ctx context.Context, tool *verify.Tool, data string, env []string) (*sandbox.Output, error) {
	stdin, _ := json.Marshal(toolInput{Data: data})
	t.reach() // every launch marks first; a script's registry calls skip Call
	return t.set.Engine.Run(ctx, tool.Module, sandbox.Call{
		Dir:      sandbox.ScopeDir(t.policy.Root, tool.Scope),
		Session:  t.policy.Root,
		Env:      env,
		Stdin:    stdin,
		Deadline: t.policy.Deadline,
		Args:     []string{tool.Name},
	})
}

// resultReply is the reply of a tool that returned murmur's ToolResult,
// with its reserved metadata for the trace.
func resultReply(res sandbox.ToolResult) session.ToolReply {
	reply := session.ToolReply{Text: res.Text(), IsError: res.IsError()}
	reply.StateEffect, _ = res.Meta("state_effect")
	reply.ResourceID, _ = res.Meta("resource_id")
	return reply
}
