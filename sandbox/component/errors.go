package component

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/binary"
	"github.com/murmur-nexus/murmur-eval/sandbox/internal/wasmcheck"
)

// unsupported reports a well-formed component this host does not run.
func unsupported(format string, args ...any) *errcode.Error {
	return binary.Unsupported(format, args...)
}

// denial is the growth a call's limits refused, in murmur's words: a
// linear memory's, or else a table's (both 0: none). As in murmur, a
// refusal wins over the trap it led to, and a memory refusal (the guest saw
// memory.grow's -1 and went on) over a later table one.
type denial struct {
	memory, memoryLimit uint64 // bytes
	table, tableLimit   uint64 // elements
}

// none reports that nothing was refused.
func (d denial) none() bool { return d.memory == 0 && d.table == 0 }

// cause is the refusal as a failure's text and kind.
func (d denial) cause() *kindError {
	if d.memory > 0 {
		return &kindError{kind: sandbox.ErrMemory, text: fmt.Sprintf(
			"linear memory growth to %d bytes exceeds capabilities.limits.memory_bytes (%d)", d.memory, d.memoryLimit)}
	}
	return &kindError{kind: sandbox.ErrTable, text: fmt.Sprintf(
		"table growth to %d elements exceeds capabilities.limits.table_elements (%d)", d.table, d.tableLimit)}
}

// hint is what to change, where (" in murmur.yaml" or ""), for the subject
// ("tool", "capsule").
func (d denial) hint(where, subject string) string {
	if d.memory > 0 {
		return "raise capabilities.limits.memory_bytes" + where + " or make the " + subject + " use less memory"
	}
	return "raise capabilities.limits.table_elements" + where + " or make the " + subject + " grow its tables less"
}

// denied is the growth the instance's limits refused: its memory's, or a
// table.grow its guard trapped (wasmcheck.GuardTableGrowth) in the main
// module or the adapter.
func (in *instance) denied() denial {
	return denial{
		memory: in.refused(), memoryLimit: in.limit, tableLimit: in.tables,
		table: max(wasmcheck.TableGrowth(in.m), wasmcheck.TableGrowth(in.s.Adapter)),
	}
}

// failure classifies a failed call: an invalid result, or callError's
// trap, deadline, memory or table limit.
func failure(ctx, callCtx context.Context, env *Env, d denial, err error) error {
	var le *abi.LiftError
	if errors.As(err, &le) {
		return errcode.Wrap(errcode.RunCapsule, fmt.Errorf("%w: %w", sandbox.ErrTrap, err), "%s returned an invalid result", env.Name)
	}
	return callError(ctx, callCtx, env.Name, env.Deadline, d, err)
}

// callError classifies why a call failed. ctx is the caller's context,
// callCtx the call's (with its deadline).
func callError(ctx, callCtx context.Context, name string, deadline time.Duration, d denial, err error) error {
	if ctx.Err() != nil {
		code := errcode.Cancelled
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			code = errcode.Timeout
		}
		return errcode.Wrap(code, ctx.Err(), "tool '%s' interrupted", name)
	}
	// murmur's texts for a tool (its GuestFailure messages), as the
	// preview-1 path gives them (sandbox's deadlineError, memoryError).
	if deadline > 0 && errors.Is(context.Cause(callCtx), sandbox.ErrDeadline) {
		secs := strconv.FormatFloat(deadline.Seconds(), 'f', -1, 64)
		return errcode.Wrap(errcode.RunCapsule, &kindError{kind: sandbox.ErrDeadline, text: "tool '" + name + "' exceeded its " + secs +
			"s execution deadline (capabilities.limits.deadline_seconds) and was interrupted"}, "").
			WithHint("raise capabilities.limits.deadline_seconds or make the tool finish sooner")
	}
	if !d.none() {
		return errcode.Wrap(errcode.RunCapsule, d.cause(), "tool '%s' exceeded its configured resource limits", name).
			WithHint("%s", d.hint("", "tool"))
	}
	return errcode.Wrap(errcode.RunCapsule, &kindError{kind: sandbox.ErrTrap, cause: err}, "tool '%s' trapped", name)
}

// kindError is a failure's text that matches its sandbox.Kind with
// errors.Is without printing the kind, so a message can be murmur's text
// and nothing else.
type kindError struct {
	kind  sandbox.Kind
	text  string
	cause error
}

func (k *kindError) Error() string {
	switch {
	case k.cause == nil:
		return k.text
	case k.text == "":
		return k.cause.Error()
	}
	return k.text + ": " + k.cause.Error()
}

func (k *kindError) Is(target error) bool { return target == k.kind }
func (k *kindError) Unwrap() error        { return k.cause }

// capsuleError classifies why a script capsule's run failed, in murmur's
// words for a capsule (its runtime's capsule deadline, resource limit and
// trap errors, all E-RUN-001). As in murmur, a refused growth wins over
// the trap it led to. ctx is the caller's context, callCtx the
// call's.
func capsuleError(ctx, callCtx context.Context, deadline time.Duration, d denial, err error) error {
	if ctx.Err() != nil {
		code := errcode.Cancelled
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			code = errcode.Timeout
		}
		return errcode.Wrap(code, ctx.Err(), "capsule execution interrupted")
	}
	if !d.none() {
		return errcode.Wrap(errcode.RunCapsule, d.cause(), "capsule execution exceeded its configured resource limits").
			WithHint("%s", d.hint(" in murmur.yaml", "capsule"))
	}
	if deadline > 0 && errors.Is(context.Cause(callCtx), sandbox.ErrDeadline) {
		secs := strconv.FormatFloat(deadline.Seconds(), 'f', -1, 64)
		return errcode.Wrap(errcode.RunCapsule, &kindError{kind: sandbox.ErrDeadline, text: "capsule execution exceeded its " + secs +
			"s deadline and was interrupted; raise capabilities.limits.deadline_seconds in murmur.yaml if the capsule legitimately needs longer"}, "")
	}
	return errcode.Wrap(errcode.RunCapsule, &kindError{kind: sandbox.ErrTrap, cause: err}, "capsule execution trapped")
}
