package component

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/binary"
)

// unsupported reports a well-formed component this host does not run.
func unsupported(format string, args ...any) *errcode.Error {
	return binary.Unsupported(format, args...)
}

// callError classifies why a call failed. ctx is the caller's context,
// callCtx the call's (with its deadline).
func callError(ctx, callCtx context.Context, name string, deadline time.Duration, refused, limit uint64, err error) error {
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
	if refused > 0 {
		return errcode.Wrap(errcode.RunCapsule, &kindError{kind: sandbox.ErrMemory, text: fmt.Sprintf(
			"linear memory growth to %d bytes exceeds capabilities.limits.memory_bytes (%d)", refused, limit)},
			"tool '%s' exceeded its configured resource limits", name).
			WithHint("raise capabilities.limits.memory_bytes or make the tool use less memory")
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
// trap errors, all E-RUN-001). As in murmur, a refused memory growth wins
// over the trap it led to. ctx is the caller's context, callCtx the
// call's.
func capsuleError(ctx, callCtx context.Context, deadline time.Duration, refused, limit uint64, err error) error {
	if ctx.Err() != nil {
		code := errcode.Cancelled
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			code = errcode.Timeout
		}
		return errcode.Wrap(code, ctx.Err(), "capsule execution interrupted")
	}
	if refused > 0 {
		return errcode.Wrap(errcode.RunCapsule, &kindError{kind: sandbox.ErrMemory, text: fmt.Sprintf(
			"linear memory growth to %d bytes exceeds capabilities.limits.memory_bytes (%d)", refused, limit)},
			"capsule execution exceeded its configured resource limits").
			WithHint("raise capabilities.limits.memory_bytes in murmur.yaml or make the capsule use less memory")
	}
	if deadline > 0 && errors.Is(context.Cause(callCtx), sandbox.ErrDeadline) {
		secs := strconv.FormatFloat(deadline.Seconds(), 'f', -1, 64)
		return errcode.Wrap(errcode.RunCapsule, &kindError{kind: sandbox.ErrDeadline, text: "capsule execution exceeded its " + secs +
			"s deadline and was interrupted; raise capabilities.limits.deadline_seconds in murmur.yaml if the capsule legitimately needs longer"}, "")
	}
	return errcode.Wrap(errcode.RunCapsule, &kindError{kind: sandbox.ErrTrap, cause: err}, "capsule execution trapped")
}
