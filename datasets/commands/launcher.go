// Package commands runs the commands a dataset line names, its setup and
// its expected.check, in the case's session, through the launcher shell
// tools use: the tool uid in its own user, PID and network namespaces,
// Landlock, seccomp, rlimits. The run makes one Launcher, which the Stage
// stage (setup) and the Report stage's check runner share, so a run has
// one launcher copy for both; it takes the host probe and the capsule's
// Spawner (when it has one) from the caller, and knows no stage.
package commands

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// Limits of a dataset command: test runners fork and open files far more
// than an agent's shell call, so a command gets at least these, whatever
// the capsule's capabilities.resources say (its other limits apply).
const (
	MinProcesses = 1024
	MinOpenFiles = 4096
)

// Launcher gives a run's dataset commands a Spawner: the capsule's when it
// has shell or native tools, otherwise one it makes on first use and Close
// removes. It is safe for concurrent use.
type Launcher struct {
	runDir string // where NewSpawner puts its launcher copy ("" for /tmp)
	mu     sync.Mutex
	own    *sandbox.Spawner
	err    error
}

// NewLauncher returns the Launcher of a run whose folder is runDir.
func NewLauncher(runDir string) *Launcher { return &Launcher{runDir: runDir} }

// Host is what a dataset command runs with: the run's host probe and the
// capsule's Spawner (nil when the capsule has no shell or native tools).
type Host struct {
	Probe   sandbox.Host
	Spawner *sandbox.Spawner
}

// Spawner returns the Spawner for commands on host h: h's own, or the
// Launcher's.
func (l *Launcher) Spawner(h Host) (*sandbox.Spawner, error) {
	if h.Spawner != nil {
		return h.Spawner, nil
	}
	if l == nil {
		return nil, errcode.New(errcode.Internal, "dataset command: no launcher (build the stage with its constructor)")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.own == nil && l.err == nil {
		exe, err := os.Executable()
		if err == nil {
			exe, err = filepath.EvalSymlinks(exe)
		}
		if err != nil {
			l.err = errcode.Wrap(errcode.Internal, err, "find the murmur-eval binary for the dataset command's launcher")
		} else {
			// No capsule grants: the command is the dataset's, not the
			// capsule's. A cgroup per command where the host has one, as
			// for a capsule's tools (none is no warning: the commands
			// ran without one before, and the capsule's warnings are its
			// own).
			cgroups, _ := sandbox.RunCgroup()
			l.own, l.err = sandbox.NewSpawner(exe, h.Probe, sandbox.SpawnerOptions{RunDir: l.runDir, Cgroups: cgroups})
			if l.err != nil && cgroups != nil {
				_ = cgroups.Close()
			}
		}
	}
	return l.own, l.err
}

// Close removes the launcher copy made for dataset commands, if any.
func (l *Launcher) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.own == nil {
		return nil
	}
	err := l.own.Close()
	l.own = nil
	return err
}

// Proc is one dataset command to run in a session.
type Proc struct {
	Path       string   // absolute path of the binary
	Argv       []string // argv[0] as the dataset wrote it
	Env        []string // the whole environment
	SessionDir string   // the working directory and the one folder it may write
	Layer      string   // the session's overlay upper layer, if any (sandbox.Proc.Layer)
	ExecFiles  []string // files outside the system folders it may execute
	Timeout    time.Duration
	Output     io.Writer // stdout and stderr, as one stream
}

// Result is how a command that ran ended.
type Result struct {
	ExitCode int    // exit status, or 128+signal
	Signal   string // the signal that killed it, "" when it exited
	TimedOut bool
	// Stopped says why the sandbox stopped it otherwise (workdir_max_bytes,
	// a resource limit's signal); "" when it did not.
	Stopped  string
	Duration time.Duration
}

// Run runs p as a shell tool runs, with resources res raised to the
// command floors, in a network namespace of its own, with execute rights
// on the session folder (test runners execute what they build there), on
// p.ExecFiles and on the system folders (ExecSystemDirs: the dataset chose
// the command, and a toolchain starts its own programs). A host that
// cannot make the namespaces is refused with E-CAP-005: a dataset command
// never runs with murmur-eval's own uid.
func (l *Launcher) Run(ctx context.Context, h Host, res capsule.Resources, p Proc) (Result, error) {
	if !h.Probe.UserNS {
		return Result{}, errcode.New(errcode.CapEgressNamespace,
			"this host cannot start %s in its own user, PID and network namespaces (%s); murmur-eval does not run it as its own user (uid %d)",
			p.Argv[0], h.Probe.UserNSReason, os.Getuid()).
			WithHint("allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or a container that permits unshare), or remove the dataset's check and setup")
	}
	// The session folder itself is handed over to the tool user.
	if err := sandbox.Reachable(filepath.Dir(p.SessionDir), "dataset commands"); err != nil {
		return Result{}, err
	}
	sp, err := l.Spawner(h)
	if err != nil {
		return Result{}, err
	}
	r, err := sp.Run(ctx, sandbox.Proc{
		Path: p.Path, Argv: p.Argv, Env: p.Env, Dir: p.SessionDir,
		SessionDir: p.SessionDir, Layer: p.Layer, WorkdirExec: true, ExecFiles: p.ExecFiles,
		// What is untrusted is the session's content, which the tool uid,
		// Landlock and the namespaces contain.
		ExecSystemDirs: true,
		Resources:      Resources(res), Isolate: true,
		Deadline: p.Timeout, Output: p.Output,
	})
	switch {
	case ctx.Err() != nil:
		return Result{}, err
	case errors.Is(err, sandbox.ErrDeadline):
		return Result{TimedOut: true, Duration: duration(r)}, nil
	case errcode.Is(err, errcode.RunWorkdirSize):
		return Result{Stopped: err.Error(), Duration: duration(r)}, nil
	case err != nil:
		return Result{}, err
	}
	out := Result{ExitCode: r.ExitCode, Duration: r.Duration}
	if r.Signal != 0 {
		out.Signal = r.Signal.String()
	}
	switch r.ResourceLimit {
	case "":
	case "cgroup_pids_max": // a fork refused, nothing killed: the exit status speaks
		if r.ExitCode != 0 {
			out.Stopped = "failed after its cgroup_pids_max limit refused a process (capabilities.resources)"
		}
	default:
		out.Stopped = "killed at its " + r.ResourceLimit + " limit (capabilities.resources)"
	}
	return out, nil
}

func duration(r *sandbox.ProcResult) (d time.Duration) {
	if r != nil {
		d = r.Duration
	}
	return d
}

// Resources is r with the command floors for processes (the cgroup's
// count too) and open files.
func Resources(r capsule.Resources) capsule.Resources {
	r.MaxProcesses = max(r.MaxProcesses, MinProcesses)
	r.CgroupPidsMax = max(r.CgroupPidsMax, MinProcesses)
	r.MaxOpenFiles = max(r.MaxOpenFiles, MinOpenFiles)
	return r
}

// Reachable refuses a run folder the dataset commands' unprivileged uid
// cannot reach (E-IO-002), before any case starts: the run checks it once
// when a selected case has a check or a setup command, as Verify does for
// shell tools, instead of every such case failing alone.
func Reachable(runDir string) error {
	return sandbox.Reachable(runDir, "dataset commands")
}
