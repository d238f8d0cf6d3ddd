package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"golang.org/x/sys/unix"
)

// Spawner starts native subprocesses (shell and native tools, checks)
// through the launcher. Create one per run with NewSpawner and Close it at
// the end; Run is safe for concurrent use.
type Spawner struct {
	launcher string // a copy of the murmur-eval binary, re-executed with LauncherArg
	dir      string // the copy's folder
	host     Host
	opts     SpawnerOptions
	closures closureCache
	calls    atomic.Uint64 // numbers the calls' cgroups
}

// NewSpawner returns a Spawner whose launcher is the binary at launcher
// (os.Executable() in production, the test binary in tests: either must
// call LauncherMain first thing). The binary is linked (or copied) into
// RunDir/.launcher (a leftover of a killed run is replaced), a folder any
// user may enter, since the subprocess's unprivileged uid must be able to
// exec it.
func NewSpawner(launcher string, host Host, opts SpawnerOptions) (*Spawner, error) {
	var dir string
	var err error
	if opts.RunDir == "" {
		dir, err = os.MkdirTemp("", "murmur-eval-launcher-")
	} else {
		dir = filepath.Join(opts.RunDir, launcherDirName)
		if err = os.RemoveAll(dir); err == nil {
			err = os.Mkdir(dir, 0o755)
		}
	}
	if err != nil {
		return nil, ioError(err, "create the launcher folder")
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, ioError(err, "chmod %s", dir)
	}
	dst := filepath.Join(dir, "murmur-eval")
	if err := linkOrCopyExec(launcher, dst); err != nil {
		os.RemoveAll(dir)
		return nil, ioError(err, "place the launcher %s", launcher)
	}
	return &Spawner{launcher: dst, dir: dir, host: host, opts: opts, closures: closureCache{m: map[closureKey]closure{}}}, nil
}

// Close removes the launcher's copy and the run's cgroup.
func (s *Spawner) Close() error {
	err := os.RemoveAll(s.dir)
	if s.opts.Cgroups != nil {
		err = errors.Join(err, s.opts.Cgroups.Close())
	}
	return err
}

// EgressMode is what a call's network is (effective_grants'
// subprocess_egress): "none" for an isolated call, "proxy" when the run's
// egress proxy serves it, "unconstrained" when it gets the host's network.
func (s *Spawner) EgressMode(isolate bool) string {
	switch {
	case isolate:
		return EgressNone
	case s.opts.Egress != nil && s.host.Egress:
		return EgressProxy
	}
	return EgressUnconstrained
}

// Host is the host probe the Spawner was made with.
func (s *Spawner) Host() Host { return s.host }

// Run runs p to completion. A tool that fails is not an error (see
// ProcResult.ExitCode); errors are set-up failures, the deadline
// (E-RUN-001 wrapping ErrDeadline), the session dir growing past
// Resources.WorkdirMaxBytes while it ran (E-RUN-013; the subprocess is
// killed) and the caller's context ending.
func (s *Spawner) Run(ctx context.Context, p Proc) (*ProcResult, error) {
	if ctx.Err() != nil {
		return nil, interrupted(ctx, p.Argv[0])
	}
	if s.host.UserNS {
		if err := handOver(p.SessionDir, p.Layer, subprocessUID()); err != nil {
			return nil, ioError(err, "hand %s over to the subprocess user", p.SessionDir)
		}
	}
	spec := s.spec(p)
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if p.Deadline > 0 {
		runCtx, cancel = context.WithTimeoutCause(ctx, p.Deadline, ErrDeadline)
	}
	defer cancel()
	stdout, stderr := newSpill(p.MaxOutput), newSpill(p.MaxOutput)
	defer stdout.discard()
	defer stderr.discard()
	cmd := &exec.Cmd{
		Path:      s.launcher,
		Args:      []string{"murmur-eval-launcher", LauncherArg, ""}, // the spec, below
		Env:       []string{},
		Dir:       p.Dir,
		Stdin:     bytes.NewReader(p.Stdin),
		Stdout:    stdout,
		Stderr:    stderr,
		WaitDelay: time.Second,
	}
	var shared *headTee // the launcher's own failure message comes first
	if p.Output != nil {
		shared = &headTee{w: p.Output, max: 4 << 10}
		cmd.Stdout, cmd.Stderr = shared, shared
	}
	call, err := s.prepareCall(p, &spec)
	if err != nil {
		return nil, err
	}
	defer call.close()
	encoded, err := json.Marshal(spec)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "encode launch spec")
	}
	cmd.Args[2] = string(encoded)
	cmd.SysProcAttr = s.sysProcAttr(p, call.proxied)
	if call.ctl != nil {
		cmd.ExtraFiles = []*os.File{call.ctl.child}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, errcode.Wrap(errcode.RunCapsule, err, "start '%s'", p.Argv[0])
	}
	pid := cmd.Process.Pid
	kill := func() {
		// The tool is PID 1 of its own PID namespace: killing it kills
		// everything it forked, even what left its process group.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	done := make(chan struct{})
	var breach error // written by the watcher before it kills, read after Wait
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(workdirPoll)
		defer tick.Stop()
		for {
			select {
			case <-runCtx.Done():
				kill()
				return
			case <-tick.C:
				if err := checkCall(cmp.Or(p.Layer, p.SessionDir), p, call.pids(pid)); err != nil {
					breach = err
					kill()
					return
				}
			case <-done:
				return
			}
		}
	}()
	setupErr := call.start(runCtx, pid)
	if setupErr != nil {
		kill()
	}
	waitErr := cmd.Wait()
	close(done)
	<-watched
	res := &ProcResult{Duration: time.Since(start)}
	res.Denied, res.ResourceLimit = call.finish()
	res.Stdout, res.Stderr = stdout.head(), stderr.head()
	res.Truncated = stdout.cut || stderr.cut
	if ctx.Err() != nil {
		return res, interrupted(ctx, p.Argv[0])
	}
	if breach != nil {
		return res, breach
	}
	if p.Deadline > 0 && errors.Is(context.Cause(runCtx), ErrDeadline) {
		return res, deadlineError(p.Argv[0], p.Deadline)
	}
	st, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if waitErr != nil && cmd.ProcessState == nil {
		return nil, errcode.Wrap(errcode.RunCapsule, waitErr, "run '%s'", p.Argv[0])
	}
	if st.Signaled() {
		res.Signal = st.Signal()
		res.ExitCode = 128 + int(res.Signal)
	} else {
		res.ExitCode = st.ExitStatus()
	}
	// A shell reports its child's death by signal as 128+signal too.
	switch res.ExitCode {
	case 128 + int(syscall.SIGXCPU):
		res.ResourceLimit = "cpu_seconds"
	case 128 + int(syscall.SIGXFSZ):
		res.ResourceLimit = "max_file_size_bytes"
	}
	launchOut := res.Stderr
	if shared != nil {
		launchOut = shared.head
	}
	if res.ExitCode == launcherFailed && bytes.Contains(launchOut, []byte(launcherMarker)) {
		msg := strings.TrimSpace(string(launchOut[bytes.Index(launchOut, []byte(launcherMarker))+len(launcherMarker):]))
		return nil, errcode.New(errcode.RunCapsule, "sandbox set-up for '%s' failed: %s", p.Argv[0], msg)
	}
	if setupErr != nil {
		return nil, errcode.Wrap(errcode.RunCapsule, setupErr, "sandbox set-up for '%s' failed", p.Argv[0])
	}
	if res.Truncated && p.LogPath != "" {
		header := fmt.Sprintf("%sExit code: %d\n", p.LogHeader, res.ExitCode)
		if err := writeLog(p.LogPath, header, stdout, stderr); err != nil {
			return res, ioError(err, "write %s", p.LogPath)
		}
	}
	return res, nil
}

// spec is the launcher's half of p.
func (s *Spawner) spec(p Proc) launchSpec {
	r := p.Resources
	spec := launchSpec{Path: p.Path, Argv: p.Argv, Env: p.Env, Dir: p.Dir, Rlimits: []rlimit{
		{syscall.RLIMIT_CORE, 0},
		{syscall.RLIMIT_NOFILE, r.MaxOpenFiles},
		{syscall.RLIMIT_FSIZE, r.MaxFileSizeBytes},
		{syscall.RLIMIT_CPU, r.CPUSeconds},
		{syscall.RLIMIT_AS, r.MemoryBytes},
		// Counted per uid in the subprocess's own user namespace, which
		// starts empty: the headroom is the whole limit (see userNS).
		{rlimitNPROC, r.MaxProcesses},
	}}
	if s.host.Landlock {
		// A proxied call connects to the proxy's listeners in its own
		// namespace, so Landlock leaves TCP alone; an isolated one has
		// nothing to connect to, and Landlock says so too.
		spec.Landlock = &landlockSpec{ABI: s.host.LandlockABI, DenyTCP: p.Isolate, Scoped: true,
			Rules: s.landlockRules(p)}
	}
	spec.Seccomp.UnixSockets = p.CapsuleGrants && s.opts.UnixSockets
	return spec
}

// rlimitNPROC is RLIMIT_NPROC, which package syscall does not name.
const rlimitNPROC = 6

// sysProcAttr is p's process attributes: namespaces when the host can make
// them; otherwise only a process group (see docs/sandbox.md).
func (s *Spawner) sysProcAttr(p Proc, proxied bool) *syscall.SysProcAttr {
	if s.host.UserNS {
		attr := userNS(p.Isolate || proxied)
		if proxied {
			// Held by the launcher in the call's own user namespace only,
			// for the namespace set-up; dropped before the exec.
			attr.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN, unix.CAP_NET_BIND_SERVICE}
		}
		return attr
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
