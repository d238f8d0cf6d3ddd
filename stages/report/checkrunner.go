package report

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/datasets/commands"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// caseChecks runs one case's check in that case's sandbox, through the
// run's dataset-command launcher (shared with the setup command).
type caseChecks struct {
	box     *commands.Launcher
	sandbox func(*pipeline.Case) (CheckSandbox, error)
	c       *pipeline.Case
}

// RunCheck runs p as a shell tool runs (commands.Launcher.Run): the
// case's resources with the command floors, its own network namespace,
// execute rights on the session folder, p.ExecFiles and the system
// folders. A host that cannot make the namespaces is refused with
// E-CAP-005: the check never runs with murmur-eval's own uid.
func (r caseChecks) RunCheck(ctx context.Context, p scoring.CheckProc) (scoring.CheckResult, error) {
	if r.box == nil || r.sandbox == nil {
		return scoring.CheckResult{}, errcode.New(errcode.Internal, "check: the run has no launcher for dataset commands")
	}
	sb, err := r.sandbox(r.c)
	if err != nil {
		return scoring.CheckResult{}, err
	}
	res, err := r.box.Run(ctx, sb.Host, sb.Resources, commands.Proc{
		Path: p.Path, Argv: p.Argv, Env: p.Env, SessionDir: p.SessionDir, Layer: sb.Layer,
		ExecFiles: p.ExecFiles, Timeout: p.Timeout, Output: p.Output,
	})
	if err != nil {
		return scoring.CheckResult{}, err
	}
	return scoring.CheckResult{ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut, Stopped: res.Stopped, Duration: res.Duration}, nil
}
