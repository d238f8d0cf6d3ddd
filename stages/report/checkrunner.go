package report

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// Check limits: test runners fork and open files far more than an agent's
// shell call, so a check gets at least these, whatever the capsule's
// capabilities.resources say (its other limits apply as they are).
const (
	checkMinProcesses = 1024
	checkMinOpenFiles = 4096
)

// checkSandbox gives cases a scoring.CheckRunner over the launcher shell
// tools use. The run's Spawner is the toolset's when the capsule has shell
// or native tools; otherwise checkSandbox makes one on the first check and
// Close removes it.
type checkSandbox struct {
	runDir string // where NewSpawner puts its launcher copy ("" for /tmp)
	mu     sync.Mutex
	own    *sandbox.Spawner
	err    error
}

// spawner returns the Spawner for checks of cases with toolset ts.
func (b *checkSandbox) spawner(ts *pipeline.Toolset) (*sandbox.Spawner, error) {
	if ts.Spawner != nil {
		return ts.Spawner, nil
	}
	if b == nil {
		return nil, errcode.New(errcode.Internal, "check: the Report stage has no launcher (build it with report.New)")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.own == nil && b.err == nil {
		exe, err := os.Executable()
		if err == nil {
			exe, err = filepath.EvalSymlinks(exe)
		}
		if err != nil {
			b.err = errcode.Wrap(errcode.Internal, err, "find the murmur-eval binary for the check's launcher")
		} else {
			// No capsule grants: a check is the dataset's, not the capsule's.
			b.own, b.err = sandbox.NewSpawner(exe, ts.Host, sandbox.SpawnerOptions{RunDir: b.runDir})
		}
	}
	return b.own, b.err
}

// Close removes the launcher copy made for checks, if any.
func (b *checkSandbox) Close() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.own == nil {
		return nil
	}
	err := b.own.Close()
	b.own = nil
	return err
}

// caseChecks runs one case's check in that case's sandbox.
type caseChecks struct {
	box *checkSandbox
	c   *pipeline.Case
}

// RunCheck runs p as a shell tool runs, with the case's resources (see
// checkResources), in a network namespace of its own, with execute rights on
// the session folder (test runners execute what they build there) and on
// p.ExecFiles. A host that cannot make the namespaces is refused with
// E-CAP-005: the check never runs with murmur-eval's own uid.
func (r caseChecks) RunCheck(ctx context.Context, p scoring.CheckProc) (scoring.CheckResult, error) {
	ts, pol := r.c.Toolset, r.c.Policy
	if ts == nil || pol == nil {
		return scoring.CheckResult{}, errcode.New(errcode.Internal, "check: the case has no toolset or policy")
	}
	if !ts.Host.UserNS {
		return scoring.CheckResult{}, errcode.New(errcode.CapEgressNamespace,
			"check: this host cannot start the check in its own user, PID and network namespaces (%s); murmur-eval does not run it as its own user (uid %d)",
			ts.Host.UserNSReason, os.Getuid()).
			WithHint("allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or a container that permits unshare), or remove check from the dataset's expected fields")
	}
	if err := reachable(p.SessionDir); err != nil {
		return scoring.CheckResult{}, err
	}
	sp, err := r.box.spawner(ts)
	if err != nil {
		return scoring.CheckResult{}, err
	}
	res, err := sp.Run(ctx, sandbox.Proc{
		Path: p.Path, Argv: p.Argv, Env: p.Env, Dir: p.SessionDir,
		SessionDir: p.SessionDir, WorkdirExec: true, ExecFiles: p.ExecFiles,
		// The dataset chose the command, and a test runner starts the
		// toolchain's own programs (sh starts grep, go starts compile):
		// the system folders are executable for a check, unlike for shell
		// tools. What is untrusted is the session's content, which the
		// tool uid, Landlock and the namespaces contain.
		ExecSystemDirs: true,
		Resources:      checkResources(pol.Resources), Isolate: true,
		Deadline: p.Timeout, Output: p.Output,
	})
	switch {
	case ctx.Err() != nil:
		return scoring.CheckResult{}, err
	case errors.Is(err, sandbox.ErrDeadline):
		return scoring.CheckResult{TimedOut: true, Duration: duration(res)}, nil
	case errcode.Is(err, errcode.RunWorkdirSize):
		return scoring.CheckResult{Stopped: err.Error(), Duration: duration(res)}, nil
	case err != nil:
		return scoring.CheckResult{}, err
	}
	out := scoring.CheckResult{ExitCode: res.ExitCode, Duration: res.Duration}
	if res.Signal != 0 {
		out.Signal = res.Signal.String()
	}
	if res.ResourceLimit != "" {
		out.Stopped = "killed at its " + res.ResourceLimit + " limit (capabilities.resources)"
	}
	return out, nil
}

func duration(res *sandbox.ProcResult) (d time.Duration) {
	if res != nil {
		d = res.Duration
	}
	return d
}

// checkResources is the capsule's capabilities.resources with the check's
// floors for processes and open files.
func checkResources(r capsule.Resources) capsule.Resources {
	r.MaxProcesses = max(r.MaxProcesses, checkMinProcesses)
	r.MaxOpenFiles = max(r.MaxOpenFiles, checkMinOpenFiles)
	return r
}

// reachable checks that the check's unprivileged uid can reach dir: when
// murmur-eval runs as root the check runs as nobody, who must be able to
// search every folder above the session (a private temporary folder or a
// 0700 home would fail the launcher's chdir). Folders are not changed:
// they are the user's.
func reachable(dir string) error {
	if os.Getuid() != 0 {
		return nil // the check keeps murmur-eval's own uid
	}
	// The session folder itself is handed over to that user by the launcher.
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return errcode.Wrap(errcode.IO, err, "check: reach %s", d)
		}
		if st.Mode().Perm()&0o001 == 0 {
			return errcode.New(errcode.IOPermission,
				"check: it runs as an unprivileged user, who cannot search %s (mode %#o) to reach the session folder %s", d, st.Mode().Perm(), dir).
				WithHint("choose an --out under folders others may search (chmod o+x %s, or an --out below /tmp)", d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
