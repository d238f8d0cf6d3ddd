package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/internal/memlimit"
	"github.com/murmur-nexus/murmur-eval/sandbox/internal/wasmcheck"
)

// Call is one invocation of a tool.
type Call struct {
	// Dir is the host directory mounted as the guest's "/", the only
	// directory it sees; it is created if missing. "" gives the guest no
	// file system at all. The guest cannot create symlinks in it, nor
	// follow one out of it (see guestFS).
	Dir string
	// Session, when not empty, is the session folder Dir lies in (Dir is
	// then a filesystem.scope folder of it): Dir is created and opened from
	// Session without following a link out of it, since a tool may have
	// replaced the scope folder by one. Dir outside Session is an error.
	Session string
	// Env is the guest's whole environment, "K=V" entries; nothing from the
	// host environment is added. A later duplicate key wins.
	Env []string
	// Stdin is what the guest reads on standard input.
	Stdin []byte
	// Deadline bounds the call's wall-clock time
	// (capabilities.limits.deadline_seconds); 0 means none.
	Deadline time.Duration
	// Args is the guest's full argv; empty means argv is just the module's
	// name.
	Args []string
	// Host answers the guest's HostModule calls; nil for tools.
	Host HostCalls
}

// Output is what a finished guest left behind. A guest that exits with a
// non-zero status is not an error: ExitCode says so.
type Output struct {
	Stdout, Stderr []byte
	// ExitCode is the guest's proc_exit status; 0 when _start returned.
	ExitCode uint32
	// StdoutTruncated and StderrTruncated report that the stream exceeded
	// Config.MaxOutputBytes and only its beginning was kept.
	StdoutTruncated, StderrTruncated bool
}

// Run instantiates m afresh, runs its _start with c, and closes the
// instance. Run is safe for concurrent use; concurrent calls share nothing
// but the compiled code.
//
// A trap, the call's own deadline, the memory limit or the table limit
// yields a *errcode.Error with code E-RUN-001 wrapping ErrTrap,
// ErrDeadline, ErrMemory or ErrTable, together with the partial Output.
// If ctx ends first, the error wraps ctx.Err() (codes E-EVL-020 or
// E-EVL-021). Set-up failures (bad Env entry, Dir not creatable) return a
// nil Output.
func (e *Engine) Run(ctx context.Context, m *Module, c Call) (*Output, error) {
	if err := e.errIfClosed(); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, interrupted(ctx, m.name)
	}
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if c.Deadline > 0 {
		callCtx, cancel = context.WithTimeoutCause(ctx, c.Deadline, ErrDeadline)
	}
	defer cancel()
	stdout := &cappedBuffer{max: e.maxOutput}
	stderr := &cappedBuffer{max: e.maxOutput}
	cfg, closeFS, err := e.moduleConfig(callCtx, m, c, stdout, stderr)
	if err != nil {
		return nil, err
	}
	defer closeFS()
	callCtx = withHost(callCtx, c.Host)
	var alloc *memlimit.Allocator
	if e.memLimit > 0 {
		alloc = memlimit.New(e.memLimit, e.pool)
		callCtx = experimental.WithMemoryAllocator(callCtx, alloc)
	}

	var mod api.Module
	runErr := alloc.Instantiate(func() (err error) {
		mod, err = e.rt.InstantiateModule(callCtx, m.compiled, cfg)
		return err
	})
	var grown uint64 // a table.grow the guard refused (wasmcheck.GuardTableGrowth)
	if runErr != nil {
		grown = wasmcheck.TableGrowth(mod)
	}
	if mod != nil {
		_ = mod.Close(context.WithoutCancel(ctx)) // a no-op if already closed
	}
	out := &Output{
		Stdout: stdout.buf.Bytes(), StdoutTruncated: stdout.truncated,
		Stderr: stderr.buf.Bytes(), StderrTruncated: stderr.truncated,
	}
	if runErr == nil {
		return out, nil
	}

	// Why did the guest stop? The caller's context first: a case timeout
	// must never be reported as the tool's own deadline.
	if ctx.Err() != nil {
		return out, interrupted(ctx, m.name)
	}
	if c.Deadline > 0 && errors.Is(context.Cause(callCtx), ErrDeadline) {
		return out, deadlineError(m.name, c.Deadline)
	}
	refused := alloc.Refused()
	var exit *sys.ExitError
	if errors.As(runErr, &exit) {
		if refused == 0 {
			out.ExitCode = exit.ExitCode()
			return out, nil
		}
		// The guest gave up after a refused grow (Go: "out of memory", exit 2).
	}
	if refused > 0 {
		return out, memoryError(m.name, refused, e.memLimit)
	}
	if grown > 0 {
		return out, tableError(m.name, grown, uint64(cmp.Or(e.tables, wasmcheck.MaxTableElements)))
	}
	return out, trapError(m.name, runErr)
}

// moduleConfig builds the per-call module configuration. Sleeps end when
// callCtx does: wazero stops a guest only while its code runs, so without
// this a guest sleeping in poll_oneoff would outlive its deadline.
// The returned func closes the guest's file system once the call is over.
func (e *Engine) moduleConfig(callCtx context.Context, m *Module, c Call, stdout, stderr *cappedBuffer) (wazero.ModuleConfig, func(), error) {
	cfg := e.base.
		WithStdin(bytes.NewReader(c.Stdin)).
		WithStdout(stdout).
		WithStderr(stderr).
		WithNanosleep(func(ns int64) { sleep(callCtx, time.Duration(ns)) })
	args := c.Args
	if len(args) == 0 {
		args = []string{m.name}
	}
	cfg = cfg.WithArgs(args...)
	for _, kv := range c.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsRune(kv, 0) {
			return nil, nil, errcode.New(errcode.Internal, "invalid environment entry %q for tool '%s': want K=V", kv, m.name)
		}
		cfg = cfg.WithEnv(k, v)
	}
	if c.Dir == "" {
		return cfg, func() {}, nil
	}
	g, err := openGuestFS(c.Session, c.Dir)
	if err != nil {
		return nil, nil, ioError(err, "open directory for tool '%s'", m.name)
	}
	return cfg.WithFSConfig(wazero.NewFSConfig().(sysfs.FSConfig).WithSysFSMount(g, "/")), g.close, nil
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// cappedBuffer keeps the first max bytes written to it and silently drops
// the rest, so a guest cannot exhaust host memory through its output. It
// never fails a write: a guest that sees EPIPE-like errors may behave
// differently from one that ran unobserved.
type cappedBuffer struct {
	max       int
	buf       bytes.Buffer
	truncated bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.truncated = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}
