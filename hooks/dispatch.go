package hooks

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// Fault is a non-fatal hook fault the trace records as
// hook_dispatch_error: an unsupported arm (Arm is its name), or for async
// hooks "error", "queue-overflow", or "timeout" at the drain (Event "drain").
type Fault struct {
	Hook, Event, Arm string
}

// Dispatcher delivers one case's lifecycle events to the run's hooks. Its
// event methods are called from the case's goroutine only; the async
// workers it starts run on their own goroutines. A nil *Dispatcher (a
// capsule without hooks) accepts every event and does nothing.
type Dispatcher struct {
	set *Set
	dir string
	env []string
	// stageEnv is on-stage's environment: MURMUR_FORMATION_ID at most.
	stageEnv []string
	now      func() time.Time
	start    time.Time
	// http and onDenied are the case's wasi:http client and denial
	// listener for component hooks (Case).
	http     *http.Client
	onDenied func(hook string, t capsule.Target)

	// Totals for on-session-end, counted from the events dispatched.
	turns, inTokens, outTokens, toolCalls, shellCalls int64

	mu         sync.Mutex // guards faults, dropped, inferences and the log files
	faults     []Fault
	dropped    map[string]int
	inferences []InferenceRecord

	// model serves run_inference (UseModel); nil without one.
	model     inference.Provider
	modelName string

	workers map[*Hook]*worker
	// instances are the component hooks' instances for the case (guarded
	// by mu), closed at SessionEnd.
	instances map[*Hook]*hookInstance
	ended     bool
}

// Bound reports whether any hook receives event, so the caller can skip
// building an expensive payload.
func (d *Dispatcher) Bound(event string) bool { return d != nil && d.set.Bound(event) }

// SessionStart instantiates every component hook, as murmur's hook
// runtime does at launch (a failure is the session's: E-RUN-001), then
// dispatches on-session-start.
func (d *Dispatcher) SessionStart(ctx context.Context, e SessionStart) error {
	if err := d.instantiateAll(ctx); err != nil {
		return err
	}
	_, err := d.dispatch(ctx, OnSessionStart, e, "")
	return err
}

// TaskStart dispatches on-task-start.
func (d *Dispatcher) TaskStart(ctx context.Context, e TaskStart) error {
	_, err := d.dispatch(ctx, OnTaskStart, e, "")
	return err
}

// Inference dispatches on-inference and counts the turn and its tokens.
// An artifact answer is honoured and dropped: murmur forwards it to an A2A
// stream, which an evaluation has not.
func (d *Dispatcher) Inference(ctx context.Context, e Inference) error {
	if d == nil {
		return nil
	}
	d.turns++
	d.inTokens = trace.AddTokens(d.inTokens, e.InputTokens)
	d.outTokens = trace.AddTokens(d.outTokens, e.OutputTokens)
	_, err := d.dispatch(ctx, OnInference, e, ArmArtifact)
	return err
}

// ToolCall dispatches on-tool-call and counts the call (skills and
// dispatch errors included, as murmur's hook runtime counts).
func (d *Dispatcher) ToolCall(ctx context.Context, e ToolCall) error {
	if d == nil {
		return nil
	}
	d.toolCalls++
	_, err := d.dispatch(ctx, OnToolCall, e, "")
	return err
}

// Shell dispatches on-shell and counts the shell call. The command is cut
// to 200 characters.
func (d *Dispatcher) Shell(ctx context.Context, e Shell) error {
	if d == nil {
		return nil
	}
	d.shellCalls++
	if r := []rune(e.Command); len(r) > 200 {
		e.Command = string(r[:200])
	}
	_, err := d.dispatch(ctx, OnShell, e, "")
	return err
}

// CompactionError is an on-compaction hook's Err, which fails the session.
type CompactionError struct {
	Hook string
	Err  error
}

func (e *CompactionError) Error() string { return e.Hook + ": " + e.Err.Error() }
func (e *CompactionError) Unwrap() error { return e.Err }

// Compaction dispatches on-compaction. It returns the first
// replace-context answer's messages (nil when no hook replaced the
// context). Any blocking hook's Err is a *CompactionError: murmur fails the
// session on it. Otherwise the error is the case's context ending.
func (d *Dispatcher) Compaction(ctx context.Context, e Compaction) ([]Message, error) {
	if d == nil {
		return nil, nil
	}
	w, err := d.dispatch(ctx, OnCompaction, e, ArmReplaceContext)
	if err != nil {
		return nil, err
	}
	if w.failed != nil {
		return nil, w.failed
	}
	if w.out == nil {
		return nil, nil
	}
	if w.out.Messages == nil {
		return []Message{}, nil
	}
	return w.out.Messages, nil
}

// Reopen is an on-task-end hook's request to run the task again.
type Reopen struct {
	Hook, Reason string
}

// TaskEnd dispatches on-task-end; the first blocking hook answering
// reopen-task wins. The error is the case's context ending.
func (d *Dispatcher) TaskEnd(ctx context.Context, e TaskEnd) (*Reopen, error) {
	if d == nil {
		return nil, nil
	}
	w, err := d.dispatch(ctx, OnTaskEnd, e, ArmReopenTask)
	if err != nil || w.out == nil {
		return nil, err
	}
	return &Reopen{Hook: w.hook, Reason: w.out.Reason}, nil
}

// SessionEnd dispatches on-session-end with the dispatcher's totals, then
// drains the async hooks within DrainTimeout. It runs once; later calls do
// nothing. It runs even when ctx has ended (the case's time is up): then
// the blocking hooks are skipped and the drain is cut short.
func (d *Dispatcher) SessionEnd(ctx context.Context, exitStatus string) {
	if d == nil || d.ended {
		return
	}
	d.ended = true
	if ctx.Err() == nil {
		_, _ = d.dispatch(ctx, OnSessionEnd, SessionEnd{
			TotalTurns: d.turns, TotalInputTokens: d.inTokens, TotalOutputTokens: d.outTokens,
			TotalToolCalls: d.toolCalls, TotalShellCalls: d.shellCalls,
			DurationMS: d.now().Sub(d.start).Milliseconds(), ExitStatus: exitStatus,
		}, "")
	}
	d.drain(ctx)
	d.closeInstances(ctx)
}

// Stage dispatches on-stage, as murmur's staging does: to the blocking
// hooks bound to on-stage or to every event, with no MURMUR_* variables.
// It returns the manifests of every write-manifests answer, in manifest
// order, for the caller to write; any other arm or an error is only
// logged (the trace is not open yet). The error is ctx ending.
func (d *Dispatcher) Stage(ctx context.Context, e StageEvent) ([]ToolManifest, error) {
	if d == nil {
		return nil, nil
	}
	if e.ShellAllow == nil {
		e.ShellAllow = []string{}
	}
	ev := &encoded{event: OnStage, payload: e}
	var out []ToolManifest
	for _, h := range d.set.hooks {
		if h.Mode != Blocking || !h.Bound(OnStage) {
			continue
		}
		res, err := d.call(ctx, h, ev, d.stageEnv)
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		switch {
		case err != nil:
			d.log(h, OnStage, "error: "+err.Error())
		case res.Arm == ArmWriteManifests:
			out = append(out, res.Manifests...)
		case res.Arm != ArmNone:
			d.log(h, OnStage, "unsupported arm '"+res.Arm+"' ignored")
		}
	}
	return out, nil
}

// TakeFaults returns the faults recorded since the last call, for the
// trace's hook_dispatch_error events.
func (d *Dispatcher) TakeFaults() []Fault {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	f := d.faults
	d.faults = nil
	return f
}

// winner is what a blocking dispatch decided.
type winner struct {
	hook   string
	out    *Output // the first honoured committing answer
	failed *CompactionError
}

// dispatch sends event to every bound hook in manifest order: async hooks
// get it queued, blocking hooks are called inline. honoured is the one
// committing arm this event takes ("" for none).
func (d *Dispatcher) dispatch(ctx context.Context, event string, payload any, honoured string) (winner, error) {
	var w winner
	if d == nil {
		return w, nil
	}
	ev := &encoded{event: event, payload: payload}
	for _, h := range d.set.hooks {
		if !h.Bound(event) {
			continue
		}
		// Encoded here, on the case's goroutine, before an async worker
		// may read it.
		if err := ev.prepare(h); err != nil {
			return w, err
		}
		if h.Mode == Async {
			if err := d.enqueue(ctx, h, job{event: event, ev: ev, honoured: honoured}); err != nil {
				return w, err
			}
			continue
		}
		out, err := d.call(ctx, h, ev, d.env)
		if ctx.Err() != nil {
			return w, context.Cause(ctx)
		}
		if err != nil {
			d.log(h, event, "error: "+err.Error())
			if event == OnCompaction && w.failed == nil {
				w.failed = &CompactionError{Hook: h.Name, Err: err}
			}
			continue
		}
		switch {
		case out.Arm == ArmNone:
		case out.Arm == honoured:
			if w.out == nil {
				o := out
				w.out, w.hook = &o, h.Name
			}
		default:
			d.unsupported(h, event, out.Arm)
		}
	}
	return w, nil
}

// call runs one hook on one event and decodes its answer: a component
// hook's instance for the case (on-stage: a throwaway one), else a fresh
// preview-1 instance. A trap, the deadline, a non-zero exit, bad output and
// {"error": ...} (a component's err) are errors.
func (d *Dispatcher) call(ctx context.Context, h *Hook, ev *encoded, env []string) (Output, error) {
	if err := ev.prepare(h); err != nil {
		return Output{}, err
	}
	if h.Component != nil {
		return d.callComponent(ctx, h, ev, env)
	}
	stdin := ev.stdin
	dir := ""
	if h.Scope != "" {
		dir = sandbox.ScopeDir(d.dir, h.Scope)
	}
	res, err := d.set.engine.Run(ctx, h.Module, sandbox.Call{
		Dir: dir, Session: d.dir, Env: env, Stdin: stdin, Deadline: d.set.opts.Deadline, Args: []string{h.Name},
		Host: hostCalls{d: d, h: h},
	})
	if err != nil {
		return Output{}, err
	}
	if res.ExitCode != 0 {
		msg := fmt.Sprintf("hook exited with status %d", res.ExitCode)
		if s := strings.TrimSpace(string(res.Stderr)); s != "" {
			msg += ": " + firstLine(s)
		}
		return Output{}, fmt.Errorf("%s", msg)
	}
	return ParseOutput(res.Stdout)
}

// unsupported records an arm the event does not honour: a log line and a
// hook_dispatch_error.
func (d *Dispatcher) unsupported(h *Hook, event, arm string) {
	d.log(h, event, "unsupported arm '"+arm+"' ignored")
	d.fault(Fault{Hook: h.Name, Event: event, Arm: arm})
}

func (d *Dispatcher) fault(f Fault) {
	d.mu.Lock()
	d.faults = append(d.faults, f)
	d.mu.Unlock()
}

// log appends one line to logs/hook-<name>.log. A failure to write it is
// ignored, as murmur ignores it: the hook's fault must not end the case.
func (d *Dispatcher) log(h *Hook, event, msg string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	// The session folder is the tools': sessionfs appends only to a log
	// murmur-eval made, never through a link or into a FIFO.
	line := fmt.Sprintf("%s [%s] %s: %s\n", d.now().UTC().Format(time.RFC3339Nano), h.Name, event, oneLine(msg))
	_ = sessionfs.AppendFile(d.dir, "logs/hook-"+h.Name+".log", []byte(line), 0o644)
}

// firstLine is the first line of a hook's stderr, at most 500 bytes: a
// Go panic or an error message starts there.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
