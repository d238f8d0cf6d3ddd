package loop

import (
	"encoding/json"

	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// inferenceHookEvent is on-inference's payload for a turn: the trace
// event's counts, and the request's messages, the response's content and
// the tools as JSON text (built only when a hook will read them).
func inferenceHookEvent(d *hooks.Dispatcher, ev trace.Inference, req *inference.Request, resp *inference.Response) hooks.Inference {
	e := hooks.Inference{Turn: ev.Turn, InputTokens: ev.InputTokens, OutputTokens: ev.OutputTokens,
		Decision: ev.Decision, ToolName: ev.ToolName}
	if !d.Bound(hooks.OnInference) {
		return e
	}
	text := func(v any) *string {
		b, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		s := string(b)
		return &s
	}
	e.Prompt, e.Tools = text(req.Messages), text(req.Tools)
	out := string(resp.Content)
	e.Output = &out
	return e
}

// shellHookEvent is on-shell's payload: the trace event's fields and the
// call's captured stdout and stderr text.
func shellHookEvent(ev trace.Shell, reply session.ToolReply) hooks.Shell {
	return hooks.Shell{Turn: ev.Turn, Binary: ev.Binary, Command: ev.Command, ExitCode: ev.ExitCode,
		Stdout: reply.ShellStdout, Stderr: reply.ShellStderr,
		StdoutBytes: int64(ev.StdoutBytes), StderrBytes: int64(ev.StderrBytes), DurationMS: ev.DurationMS}
}
