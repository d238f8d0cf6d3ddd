package launch

import (
	"context"
	"encoding/json"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// toolbox runs a case's tools: the run's shared compiled modules under the
// case's policy. It belongs to one case.
type toolbox struct {
	set    *pipeline.Toolset
	policy *pipeline.Policy
}

func (t *toolbox) Inventory() []inference.Tool { return t.set.Inventory }

// toolInput is murmur's native-tool stdin: the model's input as a JSON
// string, and no log path.
type toolInput struct {
	Data    string  `json:"data"`
	LogPath *string `json:"log_path"`
}

// Call dispatches in murmur's order for the kinds murmur-eval stages today:
// a skill answers with its guidance; a WASM tool runs in a fresh instance.
// Every failure of the tool itself becomes an error reply the model sees;
// only the case's own context ending stops the loop.
func (t *toolbox) Call(ctx context.Context, name string, input json.RawMessage) (pipeline.ToolReply, error) {
	tool, ok := t.set.Tools[name]
	if !ok {
		return pipeline.ToolReply{Text: "tool '" + name + "' is not available in this session", IsError: true}, nil
	}
	if tool.Module == nil {
		return pipeline.ToolReply{Text: tool.Skill, Skill: true}, nil
	}
	stdin, _ := json.Marshal(toolInput{Data: string(input)})
	out, err := t.set.Engine.Run(ctx, tool.Module, sandbox.Call{
		Dir:      t.policy.Root,
		Env:      t.policy.Env,
		Stdin:    stdin,
		Deadline: t.policy.Deadline,
		Args:     []string{name},
	})
	if err != nil {
		if ctx.Err() != nil {
			return pipeline.ToolReply{}, err
		}
		return pipeline.ToolReply{Text: err.Error(), IsError: true}, nil
	}
	res := sandbox.ParseToolResult(name, out)
	return pipeline.ToolReply{Text: res.Text(), IsError: res.IsError()}, nil
}
