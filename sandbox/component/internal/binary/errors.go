package binary

import (
	"fmt"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Malformed reports a binary that is not a well-formed component.
func Malformed(off int, format string, args ...any) error {
	return errcode.New(errcode.RunCapsule, "malformed component at byte %d: %s", off, fmt.Sprintf(format, args...))
}

// Unsupported reports a well-formed component this host does not run
// (E-RUN-001 with a hint on the shape it runs).
func Unsupported(format string, args ...any) *errcode.Error {
	return errcode.New(errcode.RunCapsule, "unsupported component: %s", fmt.Sprintf(format, args...)).
		WithHint("murmur-eval runs components of the shape rustc's wasm32-wasip2 target produces (see docs/components.md)")
}
