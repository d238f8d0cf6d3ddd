// Package loop is the Loop stage: murmur's agent loop for the http transport
// (murmur-session.md §1.4), or a script capsule's one run (script.go). Each turn sends the conversation and the tool
// inventory to the model; tool_call blocks are dispatched in order and
// answered with tool messages; end_turn ends the session ok; running out of
// max_turns ends it max_turns_reached. Around the loop are murmur's
// launch and task (task.go): the hooks' lifecycle events, the reopen loop
// of on-task-end, and compaction through on-compaction (compaction.go).
package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/tokens"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/trace"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// Name is the stage's name in the graph.
const Name = "loop"

// Result is the key of the stage's result, the case's *Outcome.
var Result = pipeline.NewKey[*Outcome](Name) //nolint:gochecknoglobals // a constant key (Go has no const of a generic type)

// Decl declares the stage to the graph (package stages wires the table).
var Decl = pipeline.Decl{Name: Name, Produces: Result, Requires: []string{staging.Name, launch.Name}, Live: true} //nolint:gochecknoglobals // a declaration, as go/analysis's Analyzer values

// Outcome is how the agent loop ended a case's session (session.Outcome:
// Report reads it without importing this stage).
type Outcome = session.Outcome

// Stage runs the agent loop of one case. Tokens counts the turns' tokens
// as murmur does and is shared by the run's cases (it remembers the pieces
// it counted); nil gives each case a Counter of its own.
type Stage struct {
	Tokens *tokens.Counter
	// Budget ends a case's loop when its model turns reach it (budget.go);
	// the zero value has no limit.
	Budget Budget
}

// Name returns "loop".
func (Stage) Name() string { return Name }

// Run runs the loop on the task Stage staged (the text itself: task.md is
// for the tools and hooks, not read back) and stores its Outcome. The
// session's ending (ok, failed, max_turns_reached, budget_reached: the
// case's Budget, budget.go) is the outcome, not an
// error: Run returns an error only when the loop
// cannot go on (the model provider failed, the case's context ended, the
// trace cannot be written), as murmur's loop returns Err.
func (st Stage) Run(ctx context.Context, c *pipeline.Case) error {
	s, err := pipeline.ResultOf(c, launch.Result)
	if err != nil {
		return err
	}
	staged, err := pipeline.ResultOf(c, staging.Result)
	if err != nil {
		return err
	}
	l := &run{cfg: s.Config, tr: s.Trace, model: s.Model, tools: s.Tools, process: s.Process, denied: s.Denied,
		hooks: s.Hooks, dir: c.SessionDir, sessionID: c.SessionID, maxTurns: s.Config.MaxTurns, tokens: st.Tokens,
		said: transcript.New(), spend: newSpend(st.Budget, s.Config.Model)}
	if l.tokens == nil {
		l.tokens = &tokens.Counter{}
	}
	var outcome Outcome
	if s.Script != nil {
		outcome, err = l.script(ctx, s.Script)
	} else {
		outcome, err = l.launch(ctx, staged.Task)
	}
	if outcome.ExitStatus != "" {
		l.said.End(outcome.ExitStatus, outcome.ResultText)
	}
	if !l.said.Empty() {
		outcome.Transcript = l.said
	}
	pipeline.Store(c, Result, &outcome)
	if _, ok := errors.AsType[*agentEnded](err); ok {
		return nil // the model's failure, scored from the trace
	}
	return err
}

type run struct {
	cfg   session.LoopConfig
	tr    *trace.Writer
	model inference.Provider
	tools session.Toolbox
	// process is the CLI of a transport: process session (process.go).
	process *session.ProcessCLI
	// hooks delivers lifecycle events (nil: no hooks); dir is the session
	// folder; maxTurns is inference.max_turns for the whole task, while
	// cfg.MaxTurns is what the current attempt may use (task.go).
	hooks     *hooks.Dispatcher
	dir       string
	sessionID string
	maxTurns  int
	// turnNow is the turn being handled, for hook completions' trace lines.
	turnNow int
	// tokens counts each turn's tokens (stages/loop/tokens.go).
	tokens *tokens.Counter
	// denied holds the wasi:http requests guests were refused (nil: none
	// recorded), traced after the call they happened in.
	denied *session.Denials
	// said records the conversation for logs/transcript.jsonl.
	said *transcript.Recorder
	// spend is the case's spending against its Budget (nil: no limit).
	spend *spend
}

// traceDenials writes the network_denied events of the requests guests
// were refused since the last call, as turn's.
func (l *run) traceDenials(turn int) error {
	for _, d := range l.denied.Take() {
		if err := l.tr.NetworkDenied(trace.NetworkDenied{Turn: turn, Artifact: d.Artifact, Target: d.Target, Channel: d.Channel, Reason: d.Reason}); err != nil {
			return errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
		}
	}
	return nil
}

func (l *run) run(ctx context.Context, task string) (Outcome, error) {
	if l.process != nil {
		return l.runProcess(ctx, task)
	}
	inventory := l.tools.Inventory()
	names := make([]string, len(inventory))
	for i, t := range inventory {
		names[i] = t.Name
	}
	if err := l.tr.SessionStart(sessionStart(l.cfg, names)); err != nil {
		return Outcome{}, errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
	}
	req := &inference.Request{
		MaxTokens: l.cfg.MaxTokens,
		Messages:  []inference.Message{inference.UserMessage(task)},
		Model:     l.cfg.Model,
		Params:    json.RawMessage("{}"),
		System:    SystemPrompt(l.cfg),
		Tools:     inventory,
	}
	l.said.Start(req.Model, req.System, names, task)
	for turn := 0; turn < l.cfg.MaxTurns; turn++ {
		out, done, err := l.turn(ctx, turn, req)
		if err != nil || done {
			return out, err
		}
	}
	return l.end(trace.ExitMaxTurnsReached, fmt.Sprintf("error: inference loop exceeded %d turns", l.cfg.MaxTurns))
}

// turn runs one inference and what it asks for. done is true when the
// session ended.
func (l *run) turn(ctx context.Context, turn int, req *inference.Request) (Outcome, bool, error) {
	l.turnNow = turn
	obs := &session.TraceObserver{Trace: l.tr, Turn: turn}
	digest := inference.RequestDigest(req, l.cfg.Workdir)
	l.said.Asking()
	mctx, wait := waiting(ctx)
	resp, err := l.model.Complete(mctx, req, obs)
	wait.End()
	l.sayTurn(turn, digest, resp, err)
	if obs.Err != nil {
		return Outcome{}, true, errcode.Wrap(errcode.RunAgentLoop, obs.Err, "write trace")
	}
	if derr := l.traceDenials(turn); derr != nil {
		return Outcome{}, true, derr
	}
	if err != nil {
		return Outcome{}, true, err
	}
	if resp.DriverFailed {
		// murmur: a driver status other than passed ends the session with
		// no inference event for the turn (murmur-session.md §1.4 step 4).
		out, err := l.end(trace.ExitFailed, "error: "+resp.Error)
		return out, true, err
	}
	in, out, counted, err := turnTokens(l.tokens, req, resp, l.cfg.Workdir)
	if err != nil {
		return Outcome{}, true, errcode.Wrap(errcode.Internal, err, "encode request")
	}
	ev := inferenceEvent(turn, in, out, counted, resp)
	if err := l.hooks.Inference(ctx, inferenceHookEvent(l.hooks, ev, req, resp)); err != nil {
		return Outcome{}, true, err
	}
	l.hookInferences()
	if err := l.tr.Inference(ev); err != nil {
		return Outcome{}, true, errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
	}
	// Every answered turn is paid for (its inference event is priced in
	// the rows), an error answer too.
	reached := l.spend.charge(resp.Usage, in, out)
	if resp.StopReason == inference.StopError {
		msg := resp.Error
		if msg == "" {
			msg = "driver returned error"
		}
		out, err := l.end(trace.ExitFailed, "error: "+msg)
		return out, true, err
	}
	// A turn that ends the session ends it as it says; one that would go
	// on to its tool calls stops here once the budget is reached.
	if reached != "" && resp.StopReason == inference.StopToolCall {
		out, err := l.end(trace.ExitBudgetReached, reached)
		return out, true, err
	}
	if out, done, err := l.compact(ctx, turn, req, trace.AddTokens(ev.InputTokens, ev.OutputTokens)); done || err != nil {
		return out, true, err
	}
	switch resp.StopReason {
	case inference.StopEndTurn, inference.StopMaxTokens:
		out, err := l.end(trace.ExitOK, resp.Text())
		return out, true, err
	case inference.StopToolCall:
		calls := resp.ToolCalls()
		if len(calls) == 0 {
			out, err := l.end(trace.ExitFailed, "error: response stop_reason=tool_call but no tool_call blocks were present")
			return out, true, err
		}
		replies := make([]inference.Message, 0, len(calls))
		for _, call := range calls {
			msg, err := l.call(ctx, turn, call)
			if err != nil {
				return Outcome{}, true, err
			}
			replies = append(replies, msg)
		}
		req.Messages = append(req.Messages, inference.AssistantMessage(resp.Content))
		req.Messages = append(req.Messages, replies...)
		return Outcome{}, false, nil
	default:
		out, err := l.end(trace.ExitFailed, fmt.Sprintf("error: unsupported stop_reason '%s'", resp.StopReason))
		return out, true, err
	}
}

// call dispatches one tool call and traces it.
func (l *run) call(ctx context.Context, turn int, call inference.Block) (inference.Message, error) {
	start := time.Now()
	reply, err := l.tools.Call(ctx, call.Name, call.Input)
	if derr := l.traceDenials(turn); derr != nil && err == nil {
		err = derr
	}
	if err != nil {
		return inference.Message{}, err
	}
	status := "ok"
	if reply.IsError {
		status = "error"
	}
	took := time.Since(start).Milliseconds()
	if err := l.hooks.ToolCall(ctx, hooks.ToolCall{Turn: turn, ToolName: call.Name, InputBytes: int64(len(call.Input)),
		OutputBytes: int64(len(reply.Text)), DurationMS: took, Status: status}); err != nil {
		return inference.Message{}, err
	}
	l.hookInferences()
	if reply.Skill {
		err = l.tr.SkillCall(trace.SkillCall{Turn: turn, SkillName: call.Name, OutputBytes: len(reply.Text), DurationMS: took, Status: status})
	} else {
		ev := trace.ToolCall{
			Turn:        turn,
			ToolName:    call.Name,
			Input:       call.Input,
			InputBytes:  len(call.Input),
			OutputBytes: len(reply.Text),
			DurationMS:  took,
			Status:      status,
			StateEffect: reply.StateEffect,
			ResourceID:  reply.ResourceID,
			ErrorCode:   reply.Code,
		}
		if l.cfg.IncludeToolOutput {
			out := reply.Text
			ev.Output = &out
		}
		err = l.tr.ToolCall(ev)
	}
	if err == nil && reply.Shell != nil {
		ev := *reply.Shell
		ev.Turn = turn
		if herr := l.hooks.Shell(ctx, shellHookEvent(ev, reply)); herr != nil {
			return inference.Message{}, herr
		}
		l.hookInferences()
		err = l.tr.Shell(ev)
	}
	if err != nil {
		return inference.Message{}, errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
	}
	l.said.ToolResult(turn, call.ID, call.Name, reply.IsError, reply.Text, reply.Code)
	return inference.ToolMessage(call.ID, reply.IsError, reply.Text), nil
}

// sayTurn records the model's answer to turn (or its failure) in the
// transcript.
func (l *run) sayTurn(turn int, digest string, resp *inference.Response, err error) {
	switch {
	case err != nil:
		l.said.Turn(turn, digest, "", nil, err.Error(), nil, nil)
	case resp == nil:
	default:
		var in, out *int64
		if u := resp.Usage; u != nil {
			in, out = &u.InputTokens, &u.OutputTokens
		}
		failure := resp.Error
		if resp.DriverFailed && failure == "" {
			failure = "driver failed"
		}
		l.said.Turn(turn, digest, resp.StopReason, resp.Content, failure, in, out)
	}
}

// end writes session_end and returns the outcome.
func (l *run) end(exit, result string) (Outcome, error) {
	out := Outcome{ExitStatus: exit, ResultText: result}
	if err := l.flushFaults(); err != nil {
		return out, err
	}
	if err := l.tr.SessionEnd(exit); err != nil {
		return out, errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
	}
	return out, nil
}
