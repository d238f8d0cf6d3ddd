package launch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// componentLog is where a component's murmur:text/chunks chunks and its
// stdout and stderr go, one JSON line each, appended in call order
// (docs/components.md). murmur streams chunks to an A2A client and
// inherits stdio; an eval case has neither, and a person reading the
// session wants them next to the other logs.
const componentLog = "logs/components.jsonl"

// component runs a WASM tool that is a component as murmur does
// (murmur-session.md §1.5 #4): a fresh instance, run(tool-input{data: the
// model's input JSON, log-path: none}); the lifted tool-result is the
// reply as for a preview-1 tool's result. The limits are a preview-1
// tool's: the artifact's deadline, the run's memory limit, the output
// caps; a failed call is an error reply with the same codes.
func (t *toolbox) component(ctx context.Context, tool *verify.Tool, input json.RawMessage) (session.ToolReply, error) {
	data := string(input)
	res, err := t.runComponent(ctx, tool, component.ToolInput{Data: &data}, t.policy.Env)
	if err != nil {
		if ctx.Err() != nil {
			return session.ToolReply{}, err
		}
		return session.ToolReply{Text: err.Error(), IsError: true, Code: errcode.Code(err)}, nil
	}
	return resultReply(lifted(res)), nil
}

// runComponent calls tool's component with the preopen "." over the
// session folder or the tool's filesystem.scope folder of it, env as the
// guest's environment, and logs what it emitted.
func (t *toolbox) runComponent(ctx context.Context, tool *verify.Tool, in component.ToolInput, env []string) (component.ToolResult, error) {
	return t.runGuest(ctx, guest{name: tool.Name, scope: tool.Scope, comp: tool.Component, network: tool.Network}, in, env)
}

// guest is a component artifact as runGuest calls it.
type guest struct {
	name, scope string
	comp        *component.Component
	network     []capsule.AllowRule
	// onDenied, when set, also hears of each request network denied, on
	// the guest's goroutine.
	onDenied func(capsule.Target)
}

// runGuest calls g's murmur:tool/run with the preopen "." over the session
// folder or g's filesystem.scope folder of it, env as its environment, its
// allow list for wasi:http through the run's shared client (each denied
// request kept for the trace), and logs what it emitted.
func (t *toolbox) runGuest(ctx context.Context, g guest, in component.ToolInput, env []string) (component.ToolResult, error) {
	// The session folder is opened only if the guest asks for its
	// preopen (murmur's drivers never do); a scope folder is made and
	// opened before the call, as murmur makes it when it instantiates.
	// Either way the folder counts as reached before it is opened, so an
	// open that fails half way still counts (exposure.go).
	var root *os.Root
	openRoot := func() (*os.Root, error) {
		t.reach()
		return openScope(t.policy.Root, "")
	}
	if g.scope != "" && filepath.Clean(g.scope) != "." {
		t.reach()
		var err error
		if root, err = openScope(t.policy.Root, g.scope); err != nil {
			return component.ToolResult{}, err
		}
		defer func() { _ = root.Close() }()
		openRoot = nil
	}
	res, err := g.comp.RunTool(ctx, component.Env{
		Name:             g.name,
		Root:             root,
		OpenRoot:         openRoot,
		Env:              env,
		Args:             []string{g.name},
		Deadline:         t.policy.Deadline,
		MemoryLimitBytes: t.set.Engine.MemoryLimitBytes(),
		MaxOutputBytes:   t.set.Engine.MaxOutputBytes(),
		Network:          g.network,
		HTTP:             t.http,
		OnHTTPDenied: func(target capsule.Target) {
			t.denied.Add(g.name, target)
			if g.onDenied != nil {
				g.onDenied(target)
			}
		},
	}, in)
	logComponent(t.policy.Root, g.name, res.Chunks, res.Stdout, res.Stderr)
	return res, err
}

// openScope opens the folder a guest sees as ".": the session folder, or
// its scope folder, created if missing and reached without following a
// link out of the session (a tool may have replaced the folder by one).
func openScope(sessionDir, scope string) (*os.Root, error) {
	root, err := os.OpenRoot(sessionDir)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "open session folder")
	}
	if scope == "" || filepath.Clean(scope) == "." {
		return root, nil
	}
	defer func() { _ = root.Close() }()
	rel := filepath.Clean(filepath.FromSlash(scope))
	if err := root.MkdirAll(rel, 0o755); err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "create filesystem.scope folder %s", scope)
	}
	sub, err := root.OpenRoot(rel)
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "open filesystem.scope folder %s", scope)
	}
	return sub, nil
}

// lifted is murmur's ToolResult of a lifted tool-result: status, the
// optional summary and data, and the metadata pairs (data-path and
// truncated are not shown to the model, as in murmur's dispatch).
func lifted(r component.ToolResult) sandbox.ToolResult {
	out := sandbox.ToolResult{Status: r.Status, Metadata: r.Metadata}
	if r.Summary != nil {
		out.Summary, out.HasSummary = *r.Summary, true
	}
	if r.Data != nil {
		out.Data, out.HasData = *r.Data, true
	}
	return out
}

// componentLine is one line of logs/components.jsonl.
type componentLine struct {
	Tool string `json:"tool"`
	Kind string `json:"kind"` // chunk, thinking_chunk, stdout, stderr
	Text string `json:"text"`
}

// logComponent appends a call's chunks, stdout and stderr to the session's
// logs/components.jsonl; a call that emitted nothing writes nothing. The
// log is best effort, as bootstrap.log is: the case does not fail for it.
func logComponent(sessionDir, name string, chunks []component.Chunk, stdout, stderr []byte) {
	var lines []byte
	add := func(kind, text string) {
		b, _ := json.Marshal(componentLine{Tool: name, Kind: kind, Text: text})
		lines = append(append(lines, b...), '\n')
	}
	for _, c := range chunks {
		kind := "chunk"
		if c.Thinking {
			kind = "thinking_chunk"
		}
		add(kind, c.Text)
	}
	if len(stdout) > 0 {
		add("stdout", string(stdout))
	}
	if len(stderr) > 0 {
		add("stderr", string(stderr))
	}
	if len(lines) > 0 {
		_ = sessionfs.AppendFile(sessionDir, componentLog, lines, 0o644)
	}
}
