package loop

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// maxScriptResult bounds how much of a script capsule's out/result.txt is
// read back as the case's answer.
const maxScriptResult = 16 << 20

// script runs a script capsule (no inference block) instead of the agent
// loop, as murmur's launch does: its component's murmur:capsule/run once,
// between the session hooks, with task.md in the session folder and no
// model. murmur writes no trace event for a script run (murmur-session.md
// §1.1), so neither does this. The capsule's out/result.txt is the case's
// answer; a run that trapped, ran out of its deadline or memory is the
// case's error (E-RUN-001, murmur's "trapped").
func (l *run) script(ctx context.Context, runner session.ScriptRunner) (Outcome, error) {
	err := l.hooks.SessionStart(ctx, hooks.SessionStart{
		CapsuleName: l.cfg.CapsuleName, CapsuleVersion: l.cfg.CapsuleVersion, SessionID: l.sessionID,
		Capabilities: nonNil(l.cfg.Capabilities),
	})
	l.hookInferences()
	var outcome Outcome
	if err == nil {
		_, err = runner.RunScript(ctx)
	}
	exit := trace.ExitOK
	if err != nil {
		exit = trace.ExitFailed
	} else {
		outcome = Outcome{ExitStatus: trace.ExitOK}
		b, rerr := sessionfs.ReadFile(l.dir, "out/result.txt", maxScriptResult)
		switch {
		case rerr == nil:
			outcome.ResultText = string(b)
		case !errcode.Is(rerr, errcode.IONotFound):
			err = rerr
		}
	}
	l.hooks.SessionEnd(ctx, exit)
	l.hookInferences()
	if ferr := l.flushFaults(); err == nil {
		err = ferr
	}
	return outcome, err
}
