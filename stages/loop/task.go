package loop

import (
	"cmp"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// ExitReopenBudgetExhausted is task_end's exit status when on-task-end
// hooks asked for more reopens than the budget or the turns allow.
const ExitReopenBudgetExhausted = "reopen_budget_exhausted"

// launch is murmur's launch around the case's one task
// (murmur-session.md §1.1): on-session-start, the task, on-session-end with
// the async hooks drained, and the hook faults still pending written to
// the trace (before the fallback session_end Report writes, as murmur's).
func (l *run) launch(ctx context.Context, task string) (Outcome, error) {
	err := l.hooks.SessionStart(ctx, hooks.SessionStart{
		CapsuleName: l.cfg.CapsuleName, CapsuleVersion: l.cfg.CapsuleVersion, SessionID: l.sessionID,
		Model: l.cfg.Model, Capabilities: nonNil(l.cfg.Capabilities),
	})
	l.hookInferences()
	var outcome Outcome
	if err == nil {
		outcome, err = l.task(ctx, task)
	}
	exit := trace.ExitOK
	if err != nil || outcome.TaskExit == ExitReopenBudgetExhausted {
		exit = trace.ExitFailed
	}
	l.hooks.SessionEnd(ctx, exit)
	l.hookInferences()
	if ferr := l.flushFaults(); err == nil {
		err = ferr
	}
	return outcome, err
}

// task runs the case's one task between murmur's task_start and task_end
// events (murmur-session.md §1.2–1.3, source task_md), with murmur's reopen
// loop: after every attempt on-task-end may reopen the task, within
// inference.max_task_reopens and inference.max_turns over all attempts;
// task.md is rewritten with the feedback. task_end says ok when the last
// attempt returned normally (whatever the session's exit status), failed
// when it returned an error, reopen_budget_exhausted when a reopen was
// refused.
//
// Unlike murmur, an exhausted budget is not an error of the loop: it is
// the model's failure, which exit_ok scores (RATIONALE.md).
func (l *run) task(ctx context.Context, task string) (Outcome, error) {
	id, ctxID := trace.NewID("tsk_"), trace.NewID("ctx_")
	start := time.Now()
	err := l.tr.TaskStart(trace.TaskStart{TaskID: id, ContextID: ctxID, Source: "task_md", MessagePartsBytes: len(task)})
	if err != nil {
		return Outcome{}, errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
	}
	base := l.tr.Totals()
	if err := l.hooks.TaskStart(ctx, hooks.TaskStart{TaskID: id, ContextID: ctxID, Source: "task_md", InputBytes: int64(len(task))}); err != nil {
		return Outcome{}, err
	}
	l.hookInferences()
	original := task
	var feedback []hooks.Reopen
	for {
		used := l.tr.Totals().TotalTurns - base.TotalTurns
		l.cfg.MaxTurns = l.maxTurns - used
		outcome, err := l.run(ctx, task)
		exit := trace.ExitOK
		if err != nil {
			exit = trace.ExitFailed
		}
		outcome.TaskExit, outcome.Reopens = exit, len(feedback)
		reopen, herr := l.hooks.TaskEnd(ctx, hooks.TaskEnd{TaskID: id, ExitStatus: exit})
		l.hookInferences()
		if herr != nil && err == nil {
			err = herr
			exit = trace.ExitFailed
		}
		if reopen != nil && outcome.OverBudget() {
			reopen = nil // the case's budget is spent: no further attempt
		}
		if reopen != nil {
			used = l.tr.Totals().TotalTurns - base.TotalTurns
			if len(feedback) < l.cfg.MaxTaskReopens && used < l.maxTurns {
				feedback = append(feedback, *reopen)
				if rerr := l.reopen(id, original, feedback); rerr != nil {
					return outcome, rerr
				}
				task = reopenedTask(original, feedback)
				continue
			}
			exit = ExitReopenBudgetExhausted
		}
		outcome.TaskExit = exit
		if eerr := l.taskEnd(id, exit, start, base, len(feedback)); err == nil {
			err = eerr
		}
		return outcome, err
	}
}

// reopen writes task_reopened and rewrites task.md.
func (l *run) reopen(taskID, original string, feedback []hooks.Reopen) error {
	last := feedback[len(feedback)-1]
	if err := l.tr.TaskReopened(trace.TaskReopened{TaskID: taskID, HookName: last.Hook, Reason: last.Reason, ReopenNumber: len(feedback)}); err != nil {
		return errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
	}
	// Created fresh (never through what a tool left at the name), 0600 as
	// Stage writes it; the tool's uid gets it at its next call.
	if err := sessionfs.WriteFile(l.dir, "task.md", []byte(reopenedTask(original, feedback)), 0o600); err != nil {
		// sessionfs's own code is kept (E-EVL-040 for a name refused);
		// only an uncoded failure is E-IO-003.
		return errcode.WrapKeep(errcode.IO, err, "rewrite task.md")
	}
	return nil
}

// reopenedTask is murmur's task.md after reopens: the original (trimmed at
// its end), the reopen header, and every feedback so far.
func reopenedTask(original string, feedback []hooks.Reopen) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(original, " \t\r\n"))
	b.WriteString("\n\n---\n\n# Reopen feedback\n\nThe previous attempt was not accepted. Address the following feedback, then continue.\n")
	for i, f := range feedback {
		b.WriteString("\n## Reopen " + strconv.Itoa(i+1) + " — from hook `" + f.Hook + "`\n\n")
		b.WriteString(strings.TrimSpace(f.Reason))
		b.WriteString("\n")
	}
	return b.String()
}

// taskEnd writes task_end with the task's own counts (since task_start).
func (l *run) taskEnd(id, exit string, start time.Time, base trace.SessionEnd, reopens int) error {
	t := l.tr.Totals()
	err := l.tr.TaskEnd(trace.TaskEnd{
		TaskID: id, ExitStatus: exit, DurationMS: time.Since(start).Milliseconds(),
		Turns: t.TotalTurns - base.TotalTurns, InputTokens: t.TotalInputTokens - base.TotalInputTokens,
		OutputTokens: t.TotalOutputTokens - base.TotalOutputTokens,
		ToolCalls:    t.TotalToolCalls - base.TotalToolCalls, ShellCalls: t.TotalShellCalls - base.TotalShellCalls,
		ReopenCount: reopens,
	})
	if err != nil {
		return errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
	}
	return nil
}

// flushFaults writes the hook faults recorded so far as
// hook_dispatch_error events.
func (l *run) flushFaults() error {
	for _, f := range l.hooks.TakeFaults() {
		if err := l.tr.HookDispatchError(trace.HookDispatchError{HookName: f.Hook, Event: f.Event, Arm: f.Arm}); err != nil {
			return errcode.Wrap(errcode.RunAgentLoop, err, "write trace")
		}
	}
	return nil
}

// hookInferences writes the hooks' run-inference completions since the
// last call as inference events with origin "hook:<name>", at the turn
// being handled. As in murmur, they count in the session's totals, and a
// failure to write them does not end the session.
func (l *run) hookInferences() {
	for _, r := range l.hooks.TakeInferences() {
		if r.TokensSource != tokensNone {
			l.spend.chargeRun(cmp.Or(r.Model, l.cfg.Model), inference.Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CachedInputTokens: r.CachedInputTokens})
		}
		ev := trace.Inference{Turn: l.turnNow, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
			Decision: r.Decision, Origin: "hook:" + r.Hook, Model: r.Model, TokensSource: r.TokensSource}
		if cached := r.CachedInputTokens; cached > 0 {
			ev.ProviderCachedInputTokens = &cached
		}
		_ = l.tr.Inference(ev)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
