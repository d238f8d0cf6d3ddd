package capsule

import (
	"errors"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// asError returns the first *errcode.Error in err's chain, or nil.
func asError(err error) *errcode.Error {
	var e *errcode.Error
	errors.As(err, &e)
	return e
}

func whereOf(e *errcode.Error) string {
	if e == nil {
		return "<no errcode.Error>"
	}
	return e.Where
}
