package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Kind says why a call failed. Every *errcode.Error that Run or Compile
// returns for a guest failure wraps one of the Kind constants, so callers
// can tell them apart with errors.Is (all carry code E-RUN-001).
type Kind string

// Error returns the kind's name.
func (k Kind) Error() string { return string(k) }

const (
	// ErrDeadline marks a call stopped by its own Call.Deadline
	// (capabilities.limits.deadline_seconds).
	ErrDeadline Kind = "tool deadline exceeded"
	// ErrMemory marks a call stopped because its linear memory would have
	// grown past Config.MemoryLimitBytes (capabilities.limits.memory_bytes).
	ErrMemory Kind = "tool memory limit exceeded"
	// ErrTable marks a call stopped because a table.grow asked for more
	// elements than Config.TableElements (capabilities.limits.table_elements)
	// or the table's own maximum.
	ErrTable Kind = "tool table limit exceeded"
	// ErrTrap marks a guest that trapped (unreachable, out-of-bounds access,
	// stack exhaustion, ...).
	ErrTrap Kind = "tool trapped"
)

// KindOf returns the Kind err wraps, or "" if it wraps none.
func KindOf(err error) Kind {
	for _, k := range [...]Kind{ErrDeadline, ErrMemory, ErrTable, ErrTrap} {
		if errors.Is(err, k) {
			return k
		}
	}
	return ""
}

// failure is the cause inside an *errcode.Error for a failed call: it reads
// as text (or as its cause), and matches its kind with errors.Is without
// printing it.
type failure struct {
	kind  Kind
	text  string
	cause error
}

func (f *failure) Error() string {
	switch {
	case f.cause == nil:
		return f.text
	case f.text == "":
		return f.cause.Error()
	}
	return f.text + ": " + f.cause.Error()
}

func (f *failure) Is(target error) bool { return target == f.kind }
func (f *failure) Unwrap() error        { return f.cause }

// deadlineError reports a call stopped by its own deadline, in murmur's
// words. It must not wrap context.DeadlineExceeded: that is reserved for the
// caller's context ending.
func deadlineError(tool string, d time.Duration) error {
	secs := strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	return errcode.Wrap(errcode.RunCapsule,
		&failure{kind: ErrDeadline, text: "tool '" + tool + "' exceeded its " + secs +
			"s execution deadline (capabilities.limits.deadline_seconds) and was interrupted"}, "").
		WithHint("raise capabilities.limits.deadline_seconds or make the tool finish sooner")
}

// memoryError reports a call whose memory growth was refused.
func memoryError(tool string, wanted, limit uint64) error {
	return errcode.Wrap(errcode.RunCapsule, &failure{kind: ErrMemory, text: fmt.Sprintf(
		"linear memory growth to %d bytes exceeds capabilities.limits.memory_bytes (%d)", wanted, limit)},
		"tool '%s' exceeded its configured resource limits", tool).
		WithHint("raise capabilities.limits.memory_bytes or make the tool use less memory")
}

// tableError reports a call whose table.grow asked for more elements than
// limit, in murmur's words.
func tableError(tool string, asked, limit uint64) error {
	return errcode.Wrap(errcode.RunCapsule, &failure{kind: ErrTable, text: fmt.Sprintf(
		"table growth to %d elements exceeds capabilities.limits.table_elements (%d)", asked, limit)},
		"tool '%s' exceeded its configured resource limits", tool).
		WithHint("raise capabilities.limits.table_elements or make the tool grow its tables less")
}

// trapError reports a guest trap; cause is wazero's error with the wasm
// stack trace.
func trapError(tool string, cause error) error {
	return errcode.Wrap(errcode.RunCapsule, &failure{kind: ErrTrap, cause: cause}, "tool '%s' trapped", tool)
}

// interrupted reports that the caller's context ended during a call. It
// wraps ctx.Err(), so errors.Is(err, context.DeadlineExceeded) or
// context.Canceled holds, and carries the case-level code.
func interrupted(ctx context.Context, tool string) error {
	code := errcode.Cancelled
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		code = errcode.Timeout
	}
	return errcode.Wrap(code, ctx.Err(), "tool '%s' interrupted", tool)
}
