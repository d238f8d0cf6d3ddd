package main

import (
	"context"
	"sync"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets/commands"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// checkBox runs the expected.check commands of a re-scoring as the run
// runs them (commands.Launcher: the tool uid in its own user, PID and
// network namespaces, Landlock, seccomp, the capsule's resources with the
// command floors), each in a copy of its case's session folder made in
// the new run folder: RUN's folders are never written. It is made on the
// first check and used by one goroutine.
type checkBox struct {
	outDir    string
	resources capsule.Resources // the manifest's capabilities.resources
	once      sync.Once
	launcher  *commands.Launcher
	host      commands.Host
	err       error // why no check can run on this host, or in outDir
}

// open probes the host and checks that the tool uid reaches the run
// folder, once.
func (b *checkBox) open(ctx context.Context) error {
	b.once.Do(func() {
		if b.err = commands.Reachable(b.outDir); b.err != nil {
			return
		}
		b.launcher = commands.NewLauncher(b.outDir)
		b.host = commands.Host{Probe: sandbox.ProbeHost(ctx)}
	})
	return b.err
}

// Close removes the launcher copy the checks ran with, if any.
func (b *checkBox) Close() error { return b.launcher.Close() }

// caseRunner is the check runner of one case whose session copy holds
// bytes and entries: the workdir guard counts what the check adds, as in
// the run, where it counted what the case added.
func (b *checkBox) caseRunner(bytes, entries uint64) scoring.CheckRunner {
	res := b.resources
	if res.WorkdirMaxBytes != 0 {
		res.WorkdirMaxBytes += bytes
	}
	res.WorkdirMaxFiles = defaultWorkdirMaxFiles + entries
	return checkRunner{b: b, res: res}
}

// checkRunner is scoring.CheckRunner over a checkBox.
type checkRunner struct {
	b   *checkBox
	res capsule.Resources
}

// RunCheck runs p sandboxed; a host without the namespaces is refused
// (E-CAP-005) by the launcher: a check never runs as murmur-eval's uid.
func (r checkRunner) RunCheck(ctx context.Context, p scoring.CheckProc) (scoring.CheckResult, error) {
	if err := r.b.open(ctx); err != nil {
		return scoring.CheckResult{}, err
	}
	if r.b.launcher == nil {
		return scoring.CheckResult{}, errcode.New(errcode.Internal, "check: no launcher")
	}
	res, err := r.b.launcher.Run(ctx, r.b.host, r.res, commands.Proc{
		Path: p.Path, Argv: p.Argv, Env: p.Env, SessionDir: p.SessionDir,
		ExecFiles: p.ExecFiles, Timeout: p.Timeout, Output: p.Output,
	})
	if err != nil {
		return scoring.CheckResult{}, err
	}
	return scoring.CheckResult{ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut, Stopped: res.Stopped, Duration: res.Duration}, nil
}
