package trace

import (
	"encoding/hex"

	"github.com/google/uuid"
)

// NewID returns prefix and a UUIDv7 in murmur's simple (32 hex) form, the
// form of every id murmur-eval makes (run_, ses_, tsk_, ctx_), so ids sort
// by creation time. It is the one function that makes them.
func NewID(prefix string) string {
	u := uuid.Must(uuid.NewV7())
	return prefix + hex.EncodeToString(u[:])
}
