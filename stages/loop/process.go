package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference/process"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// tokensNone is the tokens_source of a process-transport turn: the CLI's
// stream reports no count murmur uses, so input and output are 0, as
// murmur writes them.
const tokensNone = "none"

// ProcessSystemPrompt is the --system-prompt murmur gives a process CLI:
// the two notices and, after a blank line, the capsule's prompt. There is
// no [Capsule] block: the CLI frames its own prompt.
func ProcessSystemPrompt(cfg session.LoopConfig) string {
	notices := trustNotice + "\n" + untrustedNotice
	if cfg.SystemPrompt == "" {
		return notices
	}
	return notices + "\n\n" + cfg.SystemPrompt
}

// runProcess is one attempt of a transport: process session
// (murmur-session.md §2.2): the CLI runs its own loop; its tools are the
// capsule's, served by the bridge in the case's sandbox; the trace is
// written from its stream. Any ending but a successful result ends the
// session failed and returns an error (murmur's Err: task_end failed).
func (l *run) runProcess(ctx context.Context, task string) (Outcome, error) {
	inventory := l.tools.Inventory()
	names := make([]string, len(inventory))
	for i, t := range inventory {
		names[i] = t.Name
	}
	if err := l.tr.SessionStart(sessionStart(l.cfg, names)); err != nil {
		return Outcome{}, errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	opts := process.ClaudeOptions{Model: l.cfg.Model, SystemPrompt: ProcessSystemPrompt(l.cfg)}
	// The CLI runs its own conversation: the transcript holds what it was
	// given and how it ended.
	l.said.Start(l.cfg.Model, opts.SystemPrompt, names, task)
	if len(inventory) > 0 {
		bridge, err := process.StartBridge(inventory, l.bridgeDispatch(ctx, stop))
		if err != nil {
			return l.processFailed(err.Error())
		}
		defer func() { stop(nil); _ = bridge.Close() }() // a call still running sees its context end
		opts.Tools, opts.MCPConfig = names, bridge.MCPConfig()
	}
	// murmur's 600 s cap; a case whose --timeout ends sooner is stopped by
	// its context instead, and is a timeout, not a failure.
	cmd := process.Command{
		Path: l.process.Path, Args: process.ClaudeArgs(opts), Env: l.process.Env,
		Dir: l.cfg.Workdir, Stdin: process.UserLine(task), Cap: process.MaxRun,
	}
	var traceErr error
	res, err := process.Run(ctx, cmd, process.NewParser(), func(ev process.Event) error {
		traceErr = l.processEvent(ctx, ev)
		return traceErr
	})
	var f *process.Failure
	switch {
	case err == nil:
		return l.end(trace.ExitOK, res.Text)
	case errors.As(err, &f):
		out, err := l.processFailed(f.Msg)
		if f.Agent && errcode.Is(err, errcode.RunAgentLoop) {
			err = &agentEnded{err}
		}
		return out, err
	case traceErr != nil:
		return Outcome{}, traceErr
	}
	if cause := context.Cause(ctx); cause != nil && errcode.Code(cause) != "" {
		return Outcome{}, cause // the toolbox stopped the case (E-RUN-013)
	}
	if ctx.Err() != nil {
		return Outcome{}, err // the case's context ended: Report writes the fallback session_end
	}
	return l.processFailed(err.Error())
}

// processEvent writes an event's trace lines: an inference per counted
// turn, a tool_call per tool_result the stream pairs with its tool_use
// (the bridge traces nothing, so each call is traced once, in the stream's
// order, whether or not it ran in the bridge).
//
// Hooks hear each turn (on-inference: no prompt and no tools, the turn's
// content as output) and each call (on-tool-call), as murmur's do.
//
// Once the run's context has ended (the toolbox stopped the case in
// bridgeDispatch, or the case's time ran out), events the CLI still
// streams before it is killed are not traced; Run returns why it ended.
func (l *run) processEvent(ctx context.Context, ev process.Event) error {
	if ctx.Err() != nil {
		return nil
	}
	if t := ev.Turn; t != nil {
		turn := t.Index
		if turn >= l.cfg.MaxTurns {
			return &process.Failure{Msg: fmt.Sprintf("inference subprocess exceeded %d turns", l.cfg.MaxTurns), Agent: true}
		}
		inf := trace.Inference{Turn: turn, Decision: t.Decision, TokensSource: tokensNone}
		if t.ToolName != "" {
			name := t.ToolName
			inf.ToolName = &name
		}
		out := string(t.Content)
		if err := l.hooks.Inference(ctx, hooks.Inference{Turn: turn, Decision: t.Decision, ToolName: inf.ToolName, Output: &out}); err != nil {
			return err
		}
		if err := l.tr.Inference(inf); err != nil {
			return errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
		}
	}
	for _, r := range ev.ToolResults {
		status := "ok"
		if r.IsError {
			status = "error"
		}
		tc := trace.ToolCall{
			Turn: r.Turn, ToolName: r.Name, Input: r.Input, InputBytes: len(r.Input),
			OutputBytes: len(r.Text), DurationMS: r.Duration.Milliseconds(), Status: status,
		}
		if l.cfg.IncludeToolOutput {
			out := r.Text
			tc.Output = &out
		}
		if err := l.hooks.ToolCall(ctx, hooks.ToolCall{Turn: r.Turn, ToolName: r.Name, InputBytes: int64(len(r.Input)),
			OutputBytes: int64(len(r.Text)), DurationMS: tc.DurationMS, Status: status}); err != nil {
			return err
		}
		if err := l.tr.ToolCall(tc); err != nil {
			return errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
		}
	}
	return nil
}

// bridgeDispatch runs a bridged call through the case's toolbox, one at a
// time (the bridge serialises them; the mutex keeps the toolbox's
// one-goroutine contract explicit). A toolbox error (the case's context
// ended, the workdir outgrew its limit) stops the whole run.
func (l *run) bridgeDispatch(ctx context.Context, stop context.CancelCauseFunc) process.Dispatch {
	var mu sync.Mutex
	return func(name string, input json.RawMessage) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil {
			return "the case has ended", true
		}
		reply, err := l.tools.Call(ctx, name, input)
		if err != nil {
			stop(err)
			return err.Error(), true
		}
		return reply.Text, reply.IsError
	}
}

// processFailed ends the session failed with murmur's message and returns
// the agent-loop error that makes task_end failed.
func (l *run) processFailed(msg string) (Outcome, error) {
	out, err := l.end(trace.ExitFailed, "error: "+msg)
	if err != nil {
		return out, err
	}
	return out, errcode.New(errcode.RunAgentLoop, "%s", msg)
}

// agentEnded is an attempt the agent ended itself without success (it ran
// out of turns). murmur returns an error here, so task_end and the hooks
// see failed; the evaluation then scores the session (exit_ok fails)
// instead of counting a harness error: Stage.Run drops it (RATIONALE.md).
type agentEnded struct{ err error }

func (e *agentEnded) Error() string { return e.err.Error() }
func (e *agentEnded) Unwrap() error { return e.err }
